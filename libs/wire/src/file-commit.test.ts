import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunkToWire, vectorToWire } from './chunks.js';
import { fileCommitFromWire } from './file-commit.js';

test('a FileChunks message becomes one whole-file commit', () => {
  const chunk = chunkToWire({
    id: 'c1',
    path: 'a.ts',
    language: 'typescript',
    startLine: 1,
    endLine: 1,
    symbol: null,
    kind: 'block',
    content: 'x',
  });
  const base = {
    jobId: 'j',
    path: 'a.ts',
    language: 'typescript',
    hash: 'h',
    size: 12n,
    mtimeMs: 5,
    chunks: [chunk],
    symbols: [],
    embedder: '',
  } as unknown as Parameters<typeof fileCommitFromWire>[0];
  const noVectors = fileCommitFromWire({ ...base, vectors: [] }, 7);
  assert.equal(noVectors.vectors, null);
  assert.deepEqual(noVectors.record, {
    path: 'a.ts',
    hash: 'h',
    size: 12,
    mtimeMs: 5,
    language: 'typescript',
    chunkCount: 1,
    symbolCount: 0,
    indexedAt: 7,
  });
  const withVectors = fileCommitFromWire({ ...base, vectors: [vectorToWire([0.5, 0.25])] });
  assert.deepEqual(withVectors.vectors, [Float32Array.from([0.5, 0.25])]);
});
