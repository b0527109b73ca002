import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Chunk } from '@codesift/core';
import { chunkFromWire, chunkToWire } from './chunks.js';

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

test('chunks survive the wire, absent optional fields stay absent', () => {
  assert.deepEqual(chunkFromWire(chunkToWire(bare)), bare);
  const full: Chunk = {
    ...bare,
    symbol: 'Graph.addEdge',
    kind: 'method',
    signature: 'addEdge(a, b)',
    doc: 'Adds an edge.',
    context: 'In a.ts, method Graph.addEdge.',
    contextSource: 'pattern',
    contextFallback: 'timeout',
  };
  assert.deepEqual(chunkFromWire(chunkToWire(full)), full);
  const fromModel: Chunk = { ...full, contextSource: 'llm' };
  delete fromModel.contextFallback;
  assert.deepEqual(chunkFromWire(chunkToWire(fromModel)), fromModel);
});

test('a context source the wire does not know reads as not recorded', () => {
  const wire = chunkToWire(bare);
  wire.contextSource = 'oracle';
  assert.equal(chunkFromWire(wire).contextSource, undefined);
});
