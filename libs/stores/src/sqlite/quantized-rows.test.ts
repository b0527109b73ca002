import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clusteredMatrix } from '../testing/seeded-random.js';
import { nearestQuantized, type QuantizedSource, quantizeRow } from './quantized-rows.js';
import { exactCosine } from './usearch-module.js';

/** Every row of `data` quantized in memory, seq i for row i. */
function memorySource(data: Float32Array, dims: number): QuantizedSource {
  const count = data.length / dims;
  const coarse = new Int8Array(count * dims);
  const fine = new Int8Array(count * dims);
  const q = Array.from({ length: count }, (_, i) =>
    quantizeRow(data, i * dims, dims, coarse, fine, i * dims),
  );
  return {
    dims,
    slot: (seq) => (seq < count ? seq : -1),
    coarse: (slot) => coarse.subarray(slot * dims, (slot + 1) * dims),
    fine: (slot, out) => out.set(fine.subarray(slot * dims, (slot + 1) * dims)),
    scale: (slot) => q[slot]!.scale,
    norm: (slot) => q[slot]!.norm,
  };
}

/**
 * The fine copy's cosine error: at most 1e-5 at 32 dimensions, 2.5e-6 at
 * 512 (measured against f64); the coarse bytes alone err by about 5e-4.
 */
const TOLERANCE = 2e-5;

const seqs = (n: number) => Float64Array.from({ length: n }, (_, i) => i);

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
      const q = memorySource(data, dims);
      const queries = clusteredMatrix(20, dims, 1000 + dims);
      for (let j = 0; j < 20; j++) {
        const query = queries.subarray(j * dims, (j + 1) * dims);
        for (const limit of [1, 10, 50]) {
          const want = exact(data, query, dims, limit);
          const got = nearestQuantized(q, seqs(count), query, limit)!
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
    const q = memorySource(data, dims);
    // Every third row, as a filter keeps them: row i of the subset is seq 3i.
    const sub = Float64Array.from({ length: 166 }, (_, i) => 3 * i);
    const query = data.subarray(3 * 40 * dims, (3 * 40 + 1) * dims);
    const best = nearestQuantized(q, sub, query, 5)!.sort((a, b) => a.d - b.d)[0]!;
    assert.equal(best.row, 40);
    assert.ok(Math.abs(best.d) < TOLERANCE);
    // A row the source does not hold: no answer rather than a partial one.
    assert.equal(nearestQuantized(q, Float64Array.from([3, 600]), query, 5), null);
  });

  test('a zero vector is at distance 1, not NaN', () => {
    const dims = 8;
    const data = new Float32Array(2 * dims);
    data.fill(0.5, dims);
    const q = memorySource(data, dims);
    const got = nearestQuantized(q, seqs(2), new Float32Array(dims).fill(1), 2)!.sort(
      (a, b) => a.row - b.row,
    );
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
