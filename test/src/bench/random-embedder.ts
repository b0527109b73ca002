/**
 * Fixed seeded random vectors for scale benchmarks: embedding a million
 * chunks with the built-in model would take hours on this hardware. Each
 * text gets a unit vector derived from a hash of the text and the seed, so a
 * rebuilt corpus has the same vectors. It takes the built-in model's name and
 * dimensions, so the index can be searched with the real model (query
 * embedding costs what it costs in production; the neighbours it finds are
 * meaningless, the work to find them is not).
 */
import type { Embedder } from '@codesift/models';

const SEED = 0x9e3779b9;

function hash(text: string): number {
  let h = 0x811c9dc5 ^ SEED;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A unit vector of `dims` from a xorshift32 stream seeded with `seed`. */
export function seededVector(seed: number, dims: number): Float32Array {
  let s = seed || 1;
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const x = (s >>> 0) / 2 ** 32 - 0.5;
    v[i] = x;
    norm += x * x;
  }
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i]! *= inv;
  return v;
}

export function randomEmbedder(name: string, dimensions: number): Embedder {
  return {
    name,
    dimensions,
    maxBatch: 256,
    embed: async (texts) => texts.map((t) => seededVector(hash(t), dimensions)),
    close: async () => {},
  };
}
