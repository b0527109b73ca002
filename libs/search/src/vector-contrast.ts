/**
 * How much a query's vector list says, against the index's noise.
 *
 * Linear fusion min-max normalises each side (fusion.ts), so the vector
 * side's best hit always weighs as much as the keyword side's best, however
 * little the embedding singled it out. An embedding model ranks any text:
 * for a query it cannot place, the similarities of its top hits lie close
 * together, as close as they lie for random letter strings (noise-floor.ts),
 * and their order is noise that min-max stretches over the whole weight.
 * Measured on the hybrid sets (docs/EVALUATION.md), the queries whose vector
 * list was flattest lost more files to fusion than they gained, and those
 * losses were files both sides had found, reordered by the vector side.
 *
 * So the vector weight scales with the list's contrast (its top similarity
 * minus the one at CONTRAST_RANK) over the noise probes' median contrast in
 * the same index, capped at 1: a list as peaked as noise's keeps its weight
 * only in that proportion, never less than MIN_CONTRAST_SHARE of it (a
 * flat list may still be right; it only stops outvoting the keyword side).
 * Off by default (the `vectorContrast` switch): on the hybrid sets it gained
 * files on the git-history sets and lost single queries on others
 * (docs/EVALUATION.md, 2026-11-26 hybrid round).
 * Both numbers come from the index and the query; no constant of the
 * model's similarity scale is assumed.
 */

/** The rank whose similarity the top one is compared with. */
export const CONTRAST_RANK = 10;
/** The least share of its weight a flat vector list keeps. */
export const MIN_CONTRAST_SHARE = 0.75;

/**
 * The top similarity minus the one at CONTRAST_RANK (the last, when fewer):
 * null for fewer than two scores. Scores best first.
 */
export function listContrast(scores: readonly number[]): number | null {
  if (scores.length < 2) return null;
  return scores[0]! - scores[Math.min(CONTRAST_RANK, scores.length) - 1]!;
}

/**
 * The share of its weight the vector side keeps: the query's contrast over
 * the noise's, clamped to [minShare, 1]; 1 when either is unknown or the
 * noise has no contrast (nothing to compare with).
 */
export function contrastShare(
  queryContrast: number | null,
  noiseContrast: number | null,
  minShare = MIN_CONTRAST_SHARE,
): number {
  if (queryContrast === null || noiseContrast === null || !(noiseContrast > 0)) return 1;
  return Math.min(1, Math.max(minShare, queryContrast / noiseContrast));
}
