/**
 * Fusion of the keyword and vector result lists into one ranking.
 *
 * - RRF: score = sum over sides of 1 / (k + rank), rank 1-based. Uses only
 *   ranks, so the sides' incomparable score scales do not matter.
 * - Linear: each side's scores are min-max normalised over its own candidate
 *   list to [0, 1], then fused = w * vector + (1 - w) * keyword, a side that
 *   did not return the chunk contributing 0. When one side did not run at all
 *   (keyword-only, or dropped by a deadline) the other gets the whole weight,
 *   so scores stay on the same 0..1 scale.
 *
 * Ties are broken by the better of the two ranks, then by chunk id, so equal
 * inputs always give the same order.
 */
import type { FusionMethod } from './types.js';

export const DEFAULT_RRF_K = 60;
export const DEFAULT_VECTOR_WEIGHT = 0.4;

/** One side's hit: only the id and its score on that side matter to fusion. */
export interface SideHit {
  id: string;
  score: number;
}

export interface FusedHit {
  id: string;
  fused: number;
  keyword: number | null;
  keywordRank: number | null;
  vector: number | null;
  vectorRank: number | null;
}

export interface FuseInput {
  /** Best first; null when the side did not run (or was dropped). */
  keyword: SideHit[] | null;
  vector: SideHit[] | null;
  method: FusionMethod;
  /** RRF constant. */
  k?: number;
  /** Linear: weight of the vector side, 0..1. */
  vectorWeight?: number;
}

/**
 * Min-max normalisation to [0, 1]. A list whose scores are all equal (one
 * result included) maps to 1: each of them is as good as the side's best,
 * and 0 would erase a lone exact hit from the blend.
 */
export function minMaxNormalize(scores: readonly number[]): number[] {
  if (scores.length === 0) return [];
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const s of scores) {
    if (s < min) min = s;
    if (s > max) max = s;
  }
  const span = max - min;
  if (!(span > 0)) return scores.map(() => 1);
  return scores.map((s) => (s - min) / span);
}

export function fuse(input: FuseInput): FusedHit[] {
  const byId = new Map<string, FusedHit>();
  const entry = (id: string): FusedHit => {
    let e = byId.get(id);
    if (!e) {
      e = { id, fused: 0, keyword: null, keywordRank: null, vector: null, vectorRank: null };
      byId.set(id, e);
    }
    return e;
  };
  // A chunk appears once per side; a repeat (should a store return one) keeps its best rank.
  const keyword = dedupe(input.keyword);
  const vector = dedupe(input.vector);
  keyword?.forEach((h, i) => {
    const e = entry(h.id);
    e.keyword = h.score;
    e.keywordRank = i + 1;
  });
  vector?.forEach((h, i) => {
    const e = entry(h.id);
    e.vector = h.score;
    e.vectorRank = i + 1;
  });

  if (input.method === 'rrf') {
    const k = input.k ?? DEFAULT_RRF_K;
    for (const e of byId.values()) {
      e.fused =
        (e.keywordRank === null ? 0 : 1 / (k + e.keywordRank)) +
        (e.vectorRank === null ? 0 : 1 / (k + e.vectorRank));
    }
  } else {
    let w = input.vectorWeight ?? DEFAULT_VECTOR_WEIGHT;
    if (vector === null) w = 0;
    else if (keyword === null) w = 1;
    const kn = minMaxNormalize((keyword ?? []).map((h) => h.score));
    const vn = minMaxNormalize((vector ?? []).map((h) => h.score));
    for (const e of byId.values()) {
      const ks = e.keywordRank === null ? 0 : kn[e.keywordRank - 1]!;
      const vs = e.vectorRank === null ? 0 : vn[e.vectorRank - 1]!;
      e.fused = w * vs + (1 - w) * ks;
    }
  }
  return [...byId.values()].sort(compareFused);
}

function dedupe(hits: SideHit[] | null): SideHit[] | null {
  if (hits === null) return null;
  const seen = new Set<string>();
  return hits.filter((h) => {
    if (seen.has(h.id)) return false;
    seen.add(h.id);
    return true;
  });
}

function bestRank(e: FusedHit): number {
  return Math.min(
    e.keywordRank ?? Number.POSITIVE_INFINITY,
    e.vectorRank ?? Number.POSITIVE_INFINITY,
  );
}

function compareFused(a: FusedHit, b: FusedHit): number {
  return b.fused - a.fused || bestRank(a) - bestRank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
