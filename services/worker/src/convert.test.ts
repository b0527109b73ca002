import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Chunk, SymbolInfo } from '@codesift/core';
import {
  chunkFromWire,
  chunkToWire,
  fileCommitFromWire,
  symbolFromWire,
  symbolToWire,
  vectorToWire,
} from './convert.js';

test('chunks survive the wire, absent optional fields stay absent', () => {
  const bare: Chunk = {
    id: 'c1',
    path: 'a.ts',
    language: 'typescript',
    startLine: 1,
    endLine: 3,
    symbol: null,
    kind: 'block',
    content: 'x\ny\nz',
  };
  assert.deepEqual(chunkFromWire(chunkToWire(bare)), bare);
  const full: Chunk = {
    ...bare,
    symbol: 'Graph.addEdge',
    kind: 'method',
    signature: 'addEdge(a, b)',
    doc: 'Adds an edge.',
    context: 'In a.ts, method Graph.addEdge.',
  };
  assert.deepEqual(chunkFromWire(chunkToWire(full)), full);
});

test('symbols survive the wire, top level keeps parent null', () => {
  const s: SymbolInfo = {
    id: 's1',
    name: 'Graph',
    qualifiedName: 'Graph',
    kind: 'class',
    path: 'a.ts',
    language: 'typescript',
    startLine: 2,
    endLine: 9,
    parent: null,
    signature: 'class Graph',
    doc: '',
  };
  assert.deepEqual(symbolFromWire(symbolToWire(s)), s);
  assert.deepEqual(symbolFromWire(symbolToWire({ ...s, parent: 'ns' })).parent, 'ns');
});

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
