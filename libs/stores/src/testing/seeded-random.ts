/**
 * Test support: a deterministic PRNG (mulberry32), so generated vectors and
 * the assertions on them are the same on every run.
 */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` vectors of `dims` around `clusters` random centres (each
 * coordinate within 0.3 of its centre's), one matrix with row i at i x dims:
 * like embeddings of related code, whose near neighbours are close calls.
 */
export function clusteredMatrix(
  count: number,
  dims: number,
  seed: number,
  clusters = 30,
): Float32Array {
  const r = rng(seed);
  const centres = Array.from({ length: clusters }, () =>
    Float32Array.from({ length: dims }, () => r() * 2 - 1),
  );
  const out = new Float32Array(count * dims);
  for (let i = 0; i < count; i++) {
    const c = centres[i % clusters]!;
    for (let d = 0; d < dims; d++) out[i * dims + d] = c[d]! + (r() * 2 - 1) * 0.3;
  }
  return out;
}
