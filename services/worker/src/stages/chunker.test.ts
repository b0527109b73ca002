// The chunker's transform with the real tree-sitter chunker, no NATS: a
// batch of files in, the chunks and symbols for the next queues out.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { createWork, type WorkFile } from '@codesift/bus';
import { type Chunker, createChunker } from '@codesift/chunking';
import type { StageOutput } from '@codesift/service-kit';
import { chunkBatch } from './chunker.js';

const utf8 = new TextEncoder();

function fileWork(path: string, language: string, text: string) {
  return {
    root: '/repo',
    path,
    language,
    hash: `hash-of-${path}`,
    size: BigInt(text.length),
    mtimeMs: 7,
    content: utf8.encode(text),
  };
}

function outputOn<Q extends StageOutput['queue']>(out: StageOutput[] | undefined, queue: Q) {
  const found = out?.find((o) => o.queue === queue);
  assert.ok(found, `an output on ${queue}`);
  return found.files as WorkFile<Q>[];
}

let chunker: Chunker;
before(async () => {
  chunker = await createChunker();
});

test('a batch of files becomes chunks for the pipeline and symbols for the symbol service', () => {
  const batch = createWork('files', {
    jobId: 'job-1',
    files: [
      fileWork(
        'src/graph.ts',
        'typescript',
        'export class Graph {\n  addEdge(a: string, b: string): void {\n    console.log(a, b);\n  }\n}\n',
      ),
      fileWork('py/config.py', 'python', 'def parse_config(path):\n    return open(path).read()\n'),
    ],
  });
  const result = chunkBatch(chunker, batch);
  assert.deepEqual(result.failed, []);
  const chunks = outputOn(result.out, 'chunks');
  const symbols = outputOn(result.out, 'symbols');
  assert.deepEqual(
    chunks.map((f) => f.path),
    ['src/graph.ts', 'py/config.py'],
  );
  const graph = chunks[0]!;
  assert.equal(graph.hash, 'hash-of-src/graph.ts');
  assert.equal(graph.mtimeMs, 7);
  assert.ok(graph.chunks.length > 0);
  assert.ok(graph.chunks.every((c) => c.path === 'src/graph.ts' && c.content.length > 0));
  assert.ok(
    graph.symbols.some((s) => s.qualifiedName === 'Graph.addEdge'),
    'the method is a symbol',
  );
  // The symbol service gets the same symbols, without chunk text.
  assert.deepEqual(
    symbols.map((f) => f.path),
    ['src/graph.ts', 'py/config.py'],
  );
  assert.deepEqual(symbols[0]!.symbols, graph.symbols);
  assert.ok(symbols[1]!.symbols.some((s) => s.name === 'parse_config'));
});

test('a file the chunker throws on fails alone, with the reason', () => {
  const failing: Chunker = {
    ...chunker,
    chunkFile(input) {
      if (input.path === 'bad.ts') throw new Error('grammar crashed');
      return chunker.chunkFile(input);
    },
  };
  const batch = createWork('files', {
    jobId: 'job-2',
    files: [
      fileWork('bad.ts', 'typescript', 'x'),
      fileWork('good.ts', 'typescript', 'const a = 1;\n'),
    ],
  });
  const result = chunkBatch(failing, batch);
  assert.deepEqual(
    result.failed?.map((f) => [f.file.path, f.reason]),
    [['bad.ts', 'chunk: grammar crashed']],
  );
  assert.deepEqual(
    outputOn(result.out, 'chunks').map((f) => f.path),
    ['good.ts'],
  );
  assert.deepEqual(
    outputOn(result.out, 'symbols').map((f) => f.path),
    ['good.ts'],
  );
});
