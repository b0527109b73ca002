// The embedder's transform with the fixed embedder, no NATS: every chunk
// of the batch gets its vector, in groups of the model's batch size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWork, type WorkFile } from '@codesift/bus';
import { embeddingText } from '@codesift/context';
import { chunkFromWire, chunkToWire, vectorFromWire } from '@codesift/wire';
import { createFixedCostEmbedder, FIXED_EMBEDDER_DIMENSIONS } from '../fixed-embedder.js';
import { embedBatch } from './embedder.js';

function contextualized(path: string, chunks: number) {
  return {
    path,
    language: 'typescript',
    hash: `h-${path}`,
    size: 10n,
    mtimeMs: 1,
    chunks: Array.from({ length: chunks }, (_, i) =>
      chunkToWire({
        id: `${path}#${i}`,
        path,
        language: 'typescript',
        startLine: i + 1,
        endLine: i + 1,
        symbol: null,
        kind: 'block',
        content: `export const v${i} = ${i};`,
        context: `Block, lines ${i + 1}-${i + 1} of ${path}.`,
      }),
    ),
    symbols: [],
  };
}

test('each file gets one vector per chunk, in order, and the embedder name', async () => {
  const embedder = createFixedCostEmbedder(0);
  // More chunks than one model call takes: several calls, each extending the ack deadline.
  const big = embedder.maxBatch + 3;
  const batch = createWork('contextualized', {
    jobId: 'job-1',
    files: [contextualized('a.ts', big), contextualized('empty.ts', 0), contextualized('b.ts', 2)],
  });
  let working = 0;
  const result = await embedBatch(embedder, batch, () => working++);
  assert.equal(working, 2);
  assert.equal(result.out?.length, 1);
  assert.equal(result.out![0]!.queue, 'embedded');
  const files = result.out![0]!.files as WorkFile<'embedded'>[];
  assert.deepEqual(
    files.map((f) => [f.path, f.vectors.length, f.embedder]),
    [
      ['a.ts', big, embedder.name],
      ['empty.ts', 0, ''],
      ['b.ts', 2, embedder.name],
    ],
  );
  // The vector of b.ts's second chunk is that chunk's own.
  const [expected] = await embedder.embed([embeddingText(chunkFromWire(files[2]!.chunks[1]!))]);
  const got = vectorFromWire(files[2]!.vectors[1]!);
  assert.equal(got.length, FIXED_EMBEDDER_DIMENSIONS);
  assert.deepEqual(got, expected);
});

test('without an embedder the files pass through unchanged', async () => {
  const batch = createWork('contextualized', {
    jobId: 'job-2',
    files: [contextualized('a.ts', 2)],
  });
  const result = await embedBatch(null, batch);
  assert.deepEqual(result.out, [{ queue: 'embedded', files: batch.files }]);
});

test('an embedder that returns too few vectors fails the batch for a retry', async () => {
  const embedder = createFixedCostEmbedder(0);
  const short = {
    ...embedder,
    embed: async (texts: string[]) => (await embedder.embed(texts)).slice(1),
  };
  const batch = createWork('contextualized', {
    jobId: 'job-3',
    files: [contextualized('a.ts', 2)],
  });
  await assert.rejects(embedBatch(short, batch), /1 vectors for 2 texts/);
});
