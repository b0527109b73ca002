/**
 * Merging the variants' fused lists into one, per chunk, before ranking
 * (planning/variants.ts plans the variants, variants-step.ts retrieves
 * them). Pure.
 *
 * - 'max': a chunk's score is the best of weight x fused score over the
 *   variants that found it. Linear fusion scores each variant on 0..1, so
 *   the views are comparable; a chunk one view ranks first keeps its place
 *   even when the others never saw it.
 * - 'rrf': a chunk's score is the sum over variants of weight / (k + rank),
 *   rescaled so the best merged chunk scores what the best of the query's
 *   own list would: the boosts that follow are in units of the fusion
 *   scale, and must weigh the same with variants as without.
 *
 * The merged hit keeps the side scores and ranks of the variant that scored
 * it best, so `explain` shows where its score came from.
 */

import type { KeywordHit } from '@codesift/stores';
import { DEFAULT_RRF_K, type FusedHit } from './fusion.js';
import type { Candidate } from './planning/rescore.js';
import type { VariantMerge } from './planning/types.js';
import type { Fused } from './ranking.js';

export interface VariantFused {
  weight: number;
  fused: Fused;
}

export function mergeVariants(
  lists: readonly VariantFused[],
  method: VariantMerge,
  rrfK = DEFAULT_RRF_K,
): Fused {
  if (lists.length === 1 && lists[0]!.weight === 1) return lists[0]!.fused;
  const best = new Map<string, { hit: FusedHit; candidate: Candidate; score: number }>();
  const raw = new Map<string, number>();
  const keywordById = new Map<string, KeywordHit>();
  for (const { weight, fused } of lists) {
    fused.hits.forEach((hit, i) => {
      const score = weight * hit.fused;
      const had = best.get(hit.id);
      if (had === undefined || score > had.score) {
        best.set(hit.id, { hit, candidate: fused.candidates[i]!, score });
      }
      if (method === 'rrf') raw.set(hit.id, (raw.get(hit.id) ?? 0) + weight / (rrfK + i + 1));
    });
    for (const [id, h] of fused.keywordById) if (!keywordById.has(id)) keywordById.set(id, h);
  }
  let scoreOf = (id: string) => best.get(id)!.score;
  if (method === 'rrf') {
    let top = 0;
    for (const b of best.values()) top = Math.max(top, b.score);
    let maxRaw = 0;
    for (const r of raw.values()) maxRaw = Math.max(maxRaw, r);
    const unit = maxRaw > 0 ? top / maxRaw : 0;
    scoreOf = (id) => raw.get(id)! * unit;
  }
  const merged = [...best.entries()].map(([id, b]) => ({
    hit: { ...b.hit, fused: scoreOf(id) },
    candidate: { ...b.candidate, fused: scoreOf(id) },
  }));
  merged.sort((a, b) => b.hit.fused - a.hit.fused || (a.hit.id < b.hit.id ? -1 : 1));
  return {
    hits: merged.map((m) => m.hit),
    candidates: merged.map((m) => m.candidate),
    keywordById,
  };
}
