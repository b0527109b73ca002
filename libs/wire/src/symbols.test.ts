import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import type { SymbolInfo } from '@codesift/core';
import { CodeSymbolSchema } from '@codesift/proto';
import { symbolFromWire, symbolToWire } from './symbols.js';

const sym: SymbolInfo = {
  id: 's1',
  name: 'addEdge',
  qualifiedName: 'Graph.addEdge',
  kind: 'method',
  path: 'src/graph.ts',
  language: 'typescript',
  startLine: 6,
  endLine: 10,
  parent: 'Graph',
  signature: 'addEdge(a: string, b: string): void',
  doc: 'Inserts an edge from a to b.',
};

test('a symbol survives the wire, bytes included; no parent travels as empty', () => {
  const bytes = toBinary(CodeSymbolSchema, symbolToWire(sym));
  assert.deepEqual(symbolFromWire(fromBinary(CodeSymbolSchema, bytes)), sym);
  const top = { ...sym, parent: null, qualifiedName: 'addEdge' };
  assert.equal(symbolToWire(top).parent, '');
  assert.deepEqual(symbolFromWire(symbolToWire(top)), top);
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
