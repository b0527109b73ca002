import assert from 'node:assert/strict';
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { clusteredMatrix } from '../testing/seeded-random.js';
import {
  appendQuantized,
  QuantizedFile,
  type QuantizedStamp,
  SEGMENT_ROWS,
  stampMatches,
  writeQuantizedFile,
} from './quantized-file.js';
import { nearestQuantized } from './quantized-rows.js';
import { exactCosine } from './usearch-module.js';

const tmpRoot = mkdtempSync(path.join(tmpdir(), 'codesift-q8-'));
after(() => rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;
const tmpFile = () => path.join(tmpRoot, `q${++n}.q8`);

/** Seqs with gaps, as deletions leave them: row i is seq 3i + 1. */
const seqOf = (i: number) => 3 * i + 1;

/** Exact f32 search over the rows `which` of `data`: their seqs, best first. */
function exactSeqs(
  data: Float32Array,
  dims: number,
  which: number[],
  query: Float32Array,
  k: number,
) {
  const sub = new Float32Array(which.length * dims);
  which.forEach((r, j) => {
    sub.set(data.subarray(r * dims, (r + 1) * dims), j * dims);
  });
  const found = exactCosine(sub, query, dims, Math.min(k, which.length));
  return Array.from(found.keys, (key, j) => ({
    seq: seqOf(which[Number(key)]!),
    d: found.distances[j]!,
  }));
}

/** The copy's best `k` of `which`: seqs best first. */
function copySeqs(copy: QuantizedFile, which: number[], query: Float32Array, k: number) {
  const seqs = Float64Array.from(which, seqOf);
  assert.ok(copy.ready(seqs), 'the copy does not hold the rows');
  return nearestQuantized(copy, seqs, query, k)!
    .map((x) => ({ seq: seqs[x.row]!, d: x.d }))
    .sort((a, b) => a.d - b.d || a.seq - b.seq)
    .slice(0, k);
}

/** Recall of the copy's answer against exact search, near ties at the cut counted as hits. */
function recall(got: { seq: number; d: number }[], want: { seq: number; d: number }[]): number {
  const wantSeqs = new Set(want.map((w) => w.seq));
  const cut = want[want.length - 1]!.d;
  const hits = got.filter((g) => wantSeqs.has(g.seq) || Math.abs(g.d - cut) < 2e-5).length;
  return hits / want.length;
}

function writeRows(file: string, data: Float32Array, dims: number, rows: number[]): QuantizedStamp {
  const sub = new Float32Array(rows.length * dims);
  rows.forEach((r, j) => {
    sub.set(data.subarray(r * dims, (r + 1) * dims), j * dims);
  });
  return writeQuantizedFile(file, dims, { keys: rows.map(seqOf), data: sub });
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('quantized copy file', () => {
  test('round trip: answers equal exact filtered search at several selectivities', () => {
    const dims = 64;
    const count = SEGMENT_ROWS * 2 + 500; // three segments
    const data = clusteredMatrix(count, dims, 7);
    const file = tmpFile();
    const stamp = writeRows(file, data, dims, range(0, count));
    assert.equal(stamp.rows, count);
    assert.equal(statSync(file).size, stamp.bytes);
    const copy = QuantizedFile.open(file, dims, stamp);
    assert.ok(copy !== null);
    try {
      assert.equal(copy.rows, count);
      const queries = clusteredMatrix(15, dims, 99);
      // 0.5 %, 5 %, 30 % and all of the rows, scattered over the segments.
      for (const every of [200, 20, 3, 1]) {
        const which = range(0, count).filter((i) => i % every === 0);
        let sum = 0;
        for (let j = 0; j < 15; j++) {
          const query = queries.subarray(j * dims, (j + 1) * dims);
          sum += recall(copySeqs(copy, which, query, 10), exactSeqs(data, dims, which, query, 10));
        }
        assert.equal(sum / 15, 1, `recall@10 keeping 1 row in ${every}`);
      }
      // A seq the file does not hold: not ready, no answer.
      assert.equal(copy.ready(Float64Array.from([seqOf(0), 2])), false);
    } finally {
      copy.close();
    }
  });

  test('a file not matching its stamp, truncated or damaged is refused', () => {
    const dims = 16;
    const data = clusteredMatrix(SEGMENT_ROWS + 100, dims, 3);
    const file = tmpFile();
    const stamp = writeRows(file, data, dims, range(0, SEGMENT_ROWS + 100));
    const original = readFileSync(file);
    const opens = (s: QuantizedStamp, d = dims) => {
      const copy = QuantizedFile.open(file, d, s);
      copy?.close();
      return copy !== null;
    };
    assert.ok(opens(stamp));
    assert.ok(stampMatches(file, dims, stamp));
    // Another file's id (a stale sidecar), other dimensions, another row count.
    assert.equal(opens({ ...stamp, id: '00'.repeat(16) }), false);
    assert.equal(stampMatches(file, dims, { ...stamp, id: '00'.repeat(16) }), false);
    assert.equal(opens(stamp, 32), false);
    assert.equal(opens({ ...stamp, rows: stamp.rows + 1 }), false);
    // Cut short.
    truncateSync(file, stamp.bytes - 1);
    assert.equal(opens(stamp), false);
    assert.equal(stampMatches(file, dims, stamp), false);
    // A flipped byte in a segment's seqs: refused at open.
    const flip = (at: number) => {
      const bytes = Buffer.from(original);
      bytes[at] = bytes[at]! ^ 0x40;
      writeFileSync(file, bytes);
    };
    flip(32 + 24 + 8);
    assert.equal(opens(stamp), false);
    // In the coarse bytes of the second segment: opens, but its rows are never used.
    const second = 32 + 24 + SEGMENT_ROWS * (16 + 2 * dims);
    const secondRows = Float64Array.from(range(SEGMENT_ROWS, SEGMENT_ROWS + 100), seqOf);
    const firstRows = Float64Array.from(range(0, 100), seqOf);
    flip(second + 24 + 16 * 100 + 5);
    const damaged = QuantizedFile.open(file, dims, stamp);
    assert.ok(damaged !== null);
    assert.equal(damaged.ready(secondRows), false);
    // Once a segment fails, the whole file is set aside.
    assert.equal(damaged.ready(firstRows), false);
    damaged.close();
    writeFileSync(file, original);
    const copy = QuantizedFile.open(file, dims, stamp)!;
    assert.ok(copy.ready(secondRows) && copy.ready(firstRows));
    copy.close();
  });

  test('append adds segments after the stamped end; old stamps and readers stay valid', () => {
    const dims = 16;
    const data = clusteredMatrix(300, dims, 5);
    const file = tmpFile();
    const first = writeRows(file, data, dims, range(0, 200));
    const reader = QuantizedFile.open(file, dims, first)!;
    // A crashed append left bytes past the stamped end (more than it appends): the next append cuts them.
    appendFileSync(file, Buffer.alloc(8000, 1));
    const sub = data.subarray(200 * dims, 300 * dims);
    const second = appendQuantized(file, dims, first, {
      keys: range(200, 300).map(seqOf),
      data: sub,
    })!;
    assert.equal(second.id, first.id);
    assert.equal(second.rows, 300);
    assert.equal(statSync(file).size, second.bytes);
    assert.equal(second.bytes - first.bytes, 24 + 100 * (16 + 2 * dims));
    try {
      // The reader of the first stamp sees the first 200 rows only, until it extends.
      const newRows = Float64Array.from(range(200, 300), seqOf);
      assert.equal(reader.ready(newRows), false);
      assert.ok(reader.extend(second));
      assert.equal(reader.rows, 300);
      const query = data.subarray(250 * dims, 251 * dims);
      const got = copySeqs(reader, range(0, 300), query, 5);
      assert.equal(got[0]!.seq, seqOf(250));
      assert.deepEqual(
        got.map((g) => g.seq),
        exactSeqs(data, dims, range(0, 300), query, 5).map((w) => w.seq),
      );
      // A fresh reader of the old stamp still opens: the bytes it covers never changed.
      const old = QuantizedFile.open(file, dims, first)!;
      assert.equal(old.rows, 200);
      old.close();
    } finally {
      reader.close();
    }
    // Appending to a file that is not the stamped one writes nothing.
    assert.equal(
      appendQuantized(file, dims, { ...second, id: 'ff'.repeat(16) }, { keys: [1000], data: sub }),
      null,
    );
    assert.equal(statSync(file).size, second.bytes);
  });
});
