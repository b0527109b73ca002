import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BatchPacker,
  fitBatches,
  messageByteLimit,
  NATS_DEFAULT_MAX_PAYLOAD,
  packBatches,
  singleFileBatch,
} from './batch.js';
import { batchPaths, createWorkFile, decodeWork, encodeWork, workMessageId } from './codec.js';

test('the packer closes a batch at the file limit or before the byte limit is passed', () => {
  const sizes: Record<string, number> = { a: 10, b: 10, c: 10, d: 10, e: 35, f: 100, g: 1 };
  const groups = packBatches(Object.keys(sizes), (k) => sizes[k]!, { maxFiles: 3, maxBytes: 40 });
  // a-c: 3 files; d + e would be 45 > 40; e alone; f is larger than the limit: alone; g.
  assert.deepEqual(groups, [['a', 'b', 'c'], ['d'], ['e'], ['f'], ['g']]);
});

test('the packer hands back a batch as soon as the next file does not fit (publish as you go)', () => {
  const p = new BatchPacker<number>({ maxFiles: 2, maxBytes: 1000 });
  assert.equal(p.add(1, 10), undefined);
  assert.equal(p.add(2, 10), undefined);
  assert.deepEqual(p.add(3, 10), [1, 2]);
  assert.equal(p.pending, 1);
  assert.deepEqual(p.flush(), [3]);
  assert.equal(p.flush(), undefined);
  assert.throws(() => new BatchPacker({ maxFiles: 0, maxBytes: 1 }), /limits must be >= 1/);
});

test('message limit: three quarters of max_payload, 1 MiB when the server does not say', () => {
  assert.equal(messageByteLimit(undefined), (NATS_DEFAULT_MAX_PAYLOAD * 3) / 4);
  assert.equal(messageByteLimit(8 * 1024 * 1024), 6 * 1024 * 1024);
});

/** A FileChunks with n chunks of 512-d vectors: ~2 KiB per chunk on the wire. */
function embeddedFile(path: string, n: number) {
  return createWorkFile('embedded', {
    path,
    hash: `h-${path}`,
    chunks: Array.from({ length: n }, (_, i) => ({ id: `${path}#${i}`, content: `chunk ${i}` })),
    vectors: Array.from({ length: n }, () => ({ values: new Array(512).fill(0.5) })),
    embedder: 'test-512',
  });
}

test('fitBatches keeps a small batch whole and splits a large one by encoded size, in order', () => {
  const small = fitBatches('embedded', 'j1', [embeddedFile('a', 2), embeddedFile('b', 2)], 64_000);
  assert.equal(small.batches.length, 1);
  assert.deepEqual(small.tooLarge, []);

  // 32 files x 10 chunks x 2 KiB = ~660 KB: more than a 200 KB limit allows.
  const files = Array.from({ length: 32 }, (_, i) => embeddedFile(`f${i}`, 10));
  const limit = 200_000;
  const { batches, tooLarge } = fitBatches('embedded', 'j1', files, limit);
  assert.deepEqual(tooLarge, []);
  assert.ok(batches.length >= 4, `split into ${batches.length}`);
  for (const b of batches) {
    const bytes = encodeWork('embedded', b).length;
    assert.ok(bytes <= limit, `${bytes} bytes > ${limit}`);
    assert.equal(decodeWork('embedded', encodeWork('embedded', b)).jobId, 'j1');
  }
  assert.deepEqual(
    batches.flatMap((b) => batchPaths(b)),
    files.map((f) => f.path),
    'every file once, in order',
  );
  // Deterministic: the same files split the same way, with the same ids.
  const again = fitBatches('embedded', 'j1', files, limit).batches;
  assert.deepEqual(
    again.map((b) => workMessageId('embedded', b)),
    batches.map((b) => workMessageId('embedded', b)),
  );
});

test('a file too large for any message is set apart, the rest still travel', () => {
  const huge = embeddedFile('huge', 200); // ~400 KB
  const files = [embeddedFile('a', 3), huge, embeddedFile('b', 3)];
  const { batches, tooLarge } = fitBatches('embedded', 'j1', files, 100_000);
  assert.deepEqual(
    tooLarge.map((t) => t.file.path),
    ['huge'],
  );
  assert.ok(tooLarge[0]!.bytes > 100_000);
  assert.deepEqual(
    batches.flatMap((b) => batchPaths(b)),
    ['a', 'b'],
  );
});

test('a single-file batch is a valid message of the same queue (a replayable dead letter)', () => {
  const f = embeddedFile('x', 1);
  const one = singleFileBatch('embedded', 'j9', f);
  const back = decodeWork('embedded', encodeWork('embedded', one));
  assert.equal(back.jobId, 'j9');
  assert.deepEqual(batchPaths(back), ['x']);
});

test('a file whose text does not fit beside its chunks travels without it; others keep theirs', () => {
  const withText = (path: string, n: number, textBytes: number) =>
    createWorkFile('embedded', { ...embeddedFile(path, n), text: 'x'.repeat(textBytes) });
  // ~60 KB of vectors + 60 KB of text: over 100 KB with it, under without.
  const big = withText('big', 30, 60_000);
  const files = [withText('a', 3, 1000), big, withText('b', 3, 0)];
  const { batches, tooLarge } = fitBatches('embedded', 'j1', files, 100_000);
  assert.deepEqual(tooLarge, []);
  const sent = batches.flatMap((b) => b.files);
  assert.deepEqual(
    sent.map((f) => [f.path, f.text?.length]),
    [
      ['a', 1000],
      ['big', undefined],
      ['b', 0],
    ],
  );
  assert.equal(sent[1]!.chunks.length, 30, 'the chunks still travel');
});
