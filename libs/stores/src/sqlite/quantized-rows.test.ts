import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rng } from '../testing/seeded-random.js';
import { type CatalogRows, QuantizedRows } from './quantized-rows.js';
import { exactCosine } from './usearch-module.js';

/** `count` vectors of `dims` around 30 centres, one matrix (row i at i x dims). */
function clusteredMatrix(count: number, dims: number, seed: number): Float32Array {
  const r = rng(seed);
  const centres = Array.from({ length: 30 }, () =>
    Float32Array.from({ length: dims }, () => r() * 2 - 1),
  );
  const out = new Float32Array(count * dims);
  for (let i = 0; i < count; i++) {
    const c = centres[i % 30]!;
    for (let d = 0; d < dims; d++) out[i * dims + d] = c[d]! + (r() * 2 - 1) * 0.3;
  }
  return out;
}

/** Rows of seqs 0..count-1, `perChunk` to a vec0 chunk. */
function catalogRows(count: number, perChunk = 100): CatalogRows {
  return {
    seqs: Float64Array.from({ length: count }, (_, i) => i),
    chunks: Uint32Array.from({ length: count }, (_, i) => Math.floor(i / perChunk)),
  };
}

/**
 * The fine copy's cosine error: at most 1e-5 at 32 dimensions, 2.5e-6 at
 * 512 (measured against f64); the coarse bytes alone err by about 5e-4.
 */
const TOLERANCE = 2e-5;

const all = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Exact f32 search with usearch's kernel: row -> distance of the best `limit`. */
function exact(data: Float32Array, query: Float32Array, dims: number, limit: number) {
  const found = exactCosine(data, query, dims, limit);
  return Array.from(found.keys, (k, i) => ({ row: Number(k), d: found.distances[i]! }));
}

describe('quantized rows', () => {
  test('the re-ranked answer is exact search: same rows in the same order, distances within 2e-5', () => {
    for (const dims of [32, 512]) {
      const count = 3000;
      const data = clusteredMatrix(count, dims, dims);
      const rows = catalogRows(count);
      const q = new QuantizedRows(dims);
      q.store(rows, all(count), data);
      assert.equal(q.missing(rows), 0);
      const queries = clusteredMatrix(20, dims, 1000 + dims);
      for (let j = 0; j < 20; j++) {
        const query = queries.subarray(j * dims, (j + 1) * dims);
        for (const limit of [1, 10, 50]) {
          const want = exact(data, query, dims, limit);
          const got = q
            .nearest(rows, query, limit)
            .sort((a, b) => a.d - b.d || a.row - b.row)
            .slice(0, limit);
          assert.equal(got.length, limit);
          const wantD = new Map(want.map((w) => [w.row, w.d]));
          for (let i = 0; i < limit; i++) {
            assert.ok(
              Math.abs(got[i]!.d - want[i]!.d) < TOLERANCE,
              `dims ${dims} limit ${limit} rank ${i}: ${got[i]!.d} vs ${want[i]!.d}`,
            );
            // The same row, or one at the same distance within the error (a near tie).
            const d = wantD.get(got[i]!.row);
            const tiedAtCut = Math.abs(got[i]!.d - want[limit - 1]!.d) < TOLERANCE;
            assert.ok(
              d === undefined ? tiedAtCut : Math.abs(d - got[i]!.d) < TOLERANCE,
              `dims ${dims} limit ${limit} rank ${i}: row ${got[i]!.row} not in exact's answer`,
            );
          }
        }
      }
    }
  });

  test('a subset of the rows: only those are ranked, by their own seqs', () => {
    const dims = 16;
    const data = clusteredMatrix(500, dims, 3);
    const rows = catalogRows(500);
    const q = new QuantizedRows(dims);
    q.store(rows, all(500), data);
    // Every third row, as a filter keeps them: row i of the subset is seq 3i.
    const sub: CatalogRows = {
      seqs: Float64Array.from({ length: 166 }, (_, i) => 3 * i),
      chunks: Uint32Array.from({ length: 166 }, (_, i) => Math.floor((3 * i) / 100)),
    };
    const query = data.subarray(3 * 40 * dims, (3 * 40 + 1) * dims);
    const best = q.nearest(sub, query, 5).sort((a, b) => a.d - b.d)[0]!;
    assert.equal(best.row, 40);
    assert.ok(Math.abs(best.d) < TOLERANCE);
  });

  test('fill reads the missing rows a chunk at a time and stops at the budget or when full', () => {
    const dims = 8;
    const data = clusteredMatrix(1000, dims, 5);
    const rows = catalogRows(1000, 100);
    const reads: number[][] = [];
    const read = (which: number[]) => {
      reads.push(which);
      const out = new Float32Array(which.length * dims);
      which.forEach((i, j) => {
        out.set(data.subarray(i * dims, (i + 1) * dims), j * dims);
      });
      return out;
    };
    const q = new QuantizedRows(dims);
    q.fill(rows, read, 0);
    assert.equal(reads.length, 1, 'a zero budget still reads one chunk');
    assert.deepEqual(reads[0], all(100));
    assert.equal(q.missing(rows), 900);
    q.fill(rows, read, Number.POSITIVE_INFINITY);
    assert.equal(q.missing(rows), 0);
    assert.ok(
      reads.slice(1).every((w) => w.length === 100 && w[0]! >= 100),
      'held rows are not read again',
    );

    // In batches: a zero budget reads one batch of the first chunk's rows.
    const batched = new QuantizedRows(dims);
    const before = reads.length;
    batched.fill(rows, read, 0, 30);
    assert.deepEqual(reads.slice(before), [all(30)]);
    batched.fill(rows, read, Number.POSITIVE_INFINITY, 30);
    assert.equal(batched.missing(rows), 0);
    assert.ok(reads.slice(before).every((w) => w.length <= 30));

    const small = new QuantizedRows(dims, 250);
    small.fill(rows, read, Number.POSITIVE_INFINITY);
    assert.equal(small.size, 250);
    assert.equal(small.missing(rows), 750);
    assert.ok(small.full);
  });

  test('a zero vector is at distance 1, not NaN', () => {
    const dims = 8;
    const data = new Float32Array(2 * dims);
    data.fill(0.5, dims);
    const rows = catalogRows(2);
    const q = new QuantizedRows(dims);
    q.store(rows, [0, 1], data);
    const got = q.nearest(rows, new Float32Array(dims).fill(1), 2).sort((a, b) => a.row - b.row);
    assert.equal(got[0]!.d, 1);
    assert.ok(Math.abs(got[1]!.d) < 1e-6);
  });

  test('exactCosine reads a view into a larger buffer from the view, not the buffer start', () => {
    const dims = 4;
    const buf = Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
    const query = Float32Array.from([9, 9, 9, 9, 0, 0, 1, 0]).subarray(4);
    assert.equal(Number(exactCosine(buf, query, dims, 1).keys[0]), 2);
    assert.equal(Number(exactCosine(buf.subarray(4), query, dims, 1).keys[0]), 1);
  });
});
