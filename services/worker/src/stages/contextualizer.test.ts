// The contextualizer's transform with the real pattern contextualizer, no
// NATS: chunks in, the same chunks with their context sentence out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWork, type WorkFile } from '@codesift/bus';
import { type Contextualizer, createPatternContextualizer } from '@codesift/context';
import { chunkToWire } from '@codesift/wire';
import { contextualizeBatch } from './contextualizer.js';

function fileChunks(path: string) {
  return {
    path,
    language: 'typescript',
    hash: `h-${path}`,
    size: 40n,
    mtimeMs: 3,
    chunks: [
      chunkToWire({
        id: `${path}#1`,
        path,
        language: 'typescript',
        startLine: 2,
        endLine: 4,
        symbol: 'Graph.addEdge',
        kind: 'method',
        content: 'addEdge(a, b) {}',
      }),
    ],
    symbols: [],
  };
}

test('every chunk gets its pattern context; the rest of the file passes unchanged', async () => {
  const batch = createWork('chunks', { jobId: 'job-1', files: [fileChunks('src/graph.ts')] });
  const result = await contextualizeBatch(createPatternContextualizer(), batch);
  assert.deepEqual(result.failed, []);
  assert.equal(result.out?.length, 1);
  const out = result.out![0]!;
  assert.equal(out.queue, 'contextualized');
  const [file] = out.files as WorkFile<'contextualized'>[];
  assert.equal(file!.hash, 'h-src/graph.ts');
  assert.equal(file!.chunks[0]!.content, 'addEdge(a, b) {}');
  assert.match(
    file!.chunks[0]!.context,
    /^Method addEdge \(add edge\) in Graph, lines 2-4 of TypeScript file src\/graph\.ts/,
  );
});

test('a file whose contexts cannot be made fails alone', async () => {
  const pattern = createPatternContextualizer();
  const failing: Contextualizer = {
    ...pattern,
    name: 'failing',
    async contextualize(chunks) {
      if (chunks[0]?.path === 'bad.ts') throw new Error('no context');
      return pattern.contextualize(chunks);
    },
  };
  const batch = createWork('chunks', {
    jobId: 'job-2',
    files: [fileChunks('bad.ts'), fileChunks('good.ts')],
  });
  const result = await contextualizeBatch(failing, batch);
  assert.deepEqual(
    result.failed?.map((f) => [f.file.path, f.reason]),
    [['bad.ts', 'contextualize: no context']],
  );
  assert.deepEqual(
    result.out?.[0]?.files.map((f) => f.path),
    ['good.ts'],
  );
});
