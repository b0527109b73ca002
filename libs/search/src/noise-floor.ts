/**
 * The vector similarity that text with no meaning reaches in an index: the
 * floor a vector hit must clear to count as evidence when none of the
 * query's own terms is in the index (planning/min-evidence.ts).
 *
 * An embedding model places any text somewhere, and the index's nearest
 * chunk to it is never far off in absolute terms: how near depends on the
 * model and on the repository (its languages, its share of prose), so no
 * fixed number fits every index. The floor is measured instead: random
 * letter strings, shaped like words, are embedded and searched, and the
 * best similarity any of them reaches is the floor. It is computed once
 * per index version, and only when a query asks for it: one without own
 * terms (the floor), or a hybrid one fused by contrast (vector-contrast.ts).
 */
import type { Embedder } from '@codesift/models';
import type { VectorIndex } from '@codesift/stores';
import { CONTRAST_RANK, listContrast } from './vector-contrast.js';

/** Probes searched; the floor is the best top-1 similarity among them. */
export const NOISE_PROBES = 16;

/**
 * `count` random letter strings of one to three word-like pieces, the same
 * on every call (a fixed seed): a floor that moved between two identical
 * searches would make their answers differ.
 */
export function noiseProbes(count = NOISE_PROBES): string[] {
  let state = 0x9e3779b9;
  // mulberry32: small, fast, and good enough to spread letters evenly.
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const word = () => {
    const n = 4 + Math.floor(next() * 9);
    let w = '';
    for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(next() * 26));
    return w;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 3) }, word).join(' '),
  );
}

/**
 * What meaningless text gets from an index's vector side:
 * - floor: the best top-1 similarity any probe reaches;
 * - contrast: the median, over the probes, of how far the top similarity
 *   stands above the one at CONTRAST_RANK (vector-contrast.ts). A query whose
 *   vector list is no more peaked than this names nothing the model can
 *   place: its order is the model's noise.
 */
export interface NoiseProfile {
  floor: number;
  contrast: number | null;
}

/** The probes' profile against `vectors`; null for an index without vectors. */
export async function measureNoise(
  embedder: Embedder,
  vectors: Pick<VectorIndex, 'search'>,
): Promise<NoiseProfile | null> {
  const probes = await embedder.embed(noiseProbes());
  let floor: number | null = null;
  const contrasts: number[] = [];
  for (const vector of probes) {
    const hits = await vectors.search({ vector, limit: CONTRAST_RANK });
    const top = hits[0];
    if (top && (floor === null || top.score > floor)) floor = top.score;
    const c = listContrast(hits.map((h) => h.score));
    if (c !== null) contrasts.push(c);
  }
  return floor === null ? null : { floor, contrast: median(contrasts) };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The profile of one index, measured once per version (`at`: the index's updatedAt). */
export class NoiseFloorCache {
  private cached: { at: number; floor: Promise<NoiseProfile | null> } | null = null;

  get(at: number, measure: () => Promise<NoiseProfile | null>): Promise<NoiseProfile | null> {
    if (this.cached?.at !== at) {
      const floor = measure();
      this.cached = { at, floor };
      // A failed measurement is measured again next time, not remembered.
      floor.catch(() => {
        if (this.cached?.floor === floor) this.cached = null;
      });
    }
    return this.cached.floor;
  }
}
