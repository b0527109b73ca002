import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Chunk } from '@codesift/core';
import { chunkFromWire, chunkToWire } from './chunks.js';

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
