/**
 * Vectors in two-byte fixed point, for exact search over a filter's rows
 * without reading sqlite-vec: reading a filter's vectors out of vec0 costs
 * 0.1-0.7 ms a row (vec0-reader.ts), and the graph path for a filter keeping
 * a few % of the rows explores thousands of candidates, while a scan of the
 * same rows in this form costs well under a microsecond a row.
 *
 * Each row is stored as v ≈ scale · (coarse + fine / 254), coarse and fine
 * int8 with a per-row scale (max |v_i| / 127), plus its f32 norm. A search
 * ranks the filter's rows by cosine over the coarse bytes alone (usearch's
 * SIMD int8 kernel, a few tens of ns a row; error about 5e-4 in cosine),
 * then re-ranks the best limit × 2 + COARSE_MARGIN with both bytes against
 * the f32 query (error about 2e-6, below the gaps that order real
 * neighbours), so it returns what exact f32 search returns, ties aside.
 *
 * This module is the arithmetic; where the rows live is the source's
 * business (quantized-file.ts keeps them in a file written beside the
 * graph, the coarse bytes read into memory, the fine ones read per
 * candidate).
 */
import { exactCosine } from './usearch-module.js';

/** The coarse pass keeps limit × 2 + this many rows for the fine re-rank. */
const COARSE_MARGIN = 64;
/** Steps of the fine byte per coarse step. */
const FINE_STEPS = 254;

/** Quantized rows by seq. */
export interface QuantizedSource {
  readonly dims: number;
  /** The slot of `seq`, or -1 when the source does not hold it. */
  slot(seq: number): number;
  /** The coarse bytes of `slot` (dims of them). */
  coarse(slot: number): Int8Array;
  /** The fine bytes of `slot`, into `out` (dims of them). */
  fine(slot: number, out: Int8Array): void;
  scale(slot: number): number;
  norm(slot: number): number;
}

/** Row i of the rows searched at cosine distance d. */
export interface RowDistance {
  row: number;
  d: number;
}

/**
 * Quantizes the vector at `data[base..base + dims)` into `coarse` and `fine`
 * at `at`; returns its scale and norm.
 */
export function quantizeRow(
  data: Float32Array,
  base: number,
  dims: number,
  coarse: Int8Array,
  fine: Int8Array,
  at: number,
): { scale: number; norm: number } {
  let max = 0;
  let sq = 0;
  for (let i = 0; i < dims; i++) {
    const x = data[base + i]!;
    sq += x * x;
    const a = x < 0 ? -x : x;
    if (a > max) max = a;
  }
  const step = max / 127;
  const inv = step === 0 ? 0 : 1 / step;
  for (let i = 0; i < dims; i++) {
    // floor(x + 0.5) is Math.round for these values, and 5x faster in V8 here.
    const units = data[base + i]! * inv;
    const c = Math.floor(units + 0.5);
    coarse[at + i] = c;
    fine[at + i] = Math.floor((units - c) * FINE_STEPS + 0.5);
  }
  return { scale: step, norm: Math.sqrt(sq) };
}

/** Reused between searches: the coarse bytes of a filter's rows, side by side. */
let gathered = new Int8Array(0);

/**
 * The best `limit` of the rows `seqs` (all held by `source`: null when one
 * is not) by cosine distance to `query`, unordered, row i for seqs[i].
 * Distances are those of the fine copy.
 */
export function nearestQuantized(
  source: QuantizedSource,
  seqs: ArrayLike<number>,
  query: Float32Array,
  limit: number,
): RowDistance[] | null {
  const dims = source.dims;
  const s = seqs.length;
  if (s === 0 || limit <= 0) return [];
  const slots = new Int32Array(s);
  for (let i = 0; i < s; i++) {
    const slot = source.slot(seqs[i]!);
    if (slot < 0) return null;
    slots[i] = slot;
  }
  if (gathered.length < s * dims) gathered = new Int8Array(s * dims);
  for (let i = 0; i < s; i++) gathered.set(source.coarse(slots[i]!), i * dims);
  let qmax = 0;
  let qsq = 0;
  for (let i = 0; i < dims; i++) {
    qsq += query[i]! * query[i]!;
    qmax = Math.max(qmax, Math.abs(query[i]!));
  }
  const qNorm = Math.sqrt(qsq);
  const q8 = Int8Array.from(query, (x) => (qmax === 0 ? 0 : Math.round((x / qmax) * 127)));
  const keep = Math.min(s, limit * 2 + COARSE_MARGIN);
  const found = exactCosine(gathered.subarray(0, s * dims), q8, dims, keep);
  const fine = new Int8Array(dims);
  const out: RowDistance[] = [];
  for (let j = 0; j < found.keys.length; j++) {
    const row = Number(found.keys[j]);
    const slot = slots[row]!;
    source.fine(slot, fine);
    out.push({ row, d: fineDistance(source, slot, fine, query, qNorm) });
  }
  return out;
}

/** Cosine distance from the fine copy of `slot` to the f32 query (as usearch's f32 kernel defines it). */
function fineDistance(
  source: QuantizedSource,
  slot: number,
  fine: Int8Array,
  query: Float32Array,
  qNorm: number,
): number {
  const denom = qNorm * source.norm(slot);
  if (denom === 0) return 1;
  const coarse = source.coarse(slot);
  let c = 0;
  let f = 0;
  for (let i = 0; i < source.dims; i++) {
    c += query[i]! * coarse[i]!;
    f += query[i]! * fine[i]!;
  }
  return 1 - ((c + f / FINE_STEPS) * source.scale(slot)) / denom;
}
