import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  FileChunksSchema,
  IndexService,
  SearchRequestSchema,
  SearchService,
  SymbolService,
} from './index.js';

test('pipeline messages survive a binary round trip, vectors included', () => {
  const msg = create(FileChunksSchema, {
    jobId: 'j1',
    path: 'src/a.ts',
    chunks: [{ id: 'c1', path: 'src/a.ts', range: { startLine: 1, endLine: 9 }, content: 'x' }],
    vectors: [{ values: [0.5, -0.25, 1] }],
  });
  const back = fromBinary(FileChunksSchema, toBinary(FileChunksSchema, msg));
  assert.equal(back.chunks[0]?.range?.endLine, 9);
  assert.deepEqual(back.vectors[0]?.values, [0.5, -0.25, 1]);
});

test('optional rewrite flag distinguishes unset from false', () => {
  const unset = fromBinary(
    SearchRequestSchema,
    toBinary(SearchRequestSchema, create(SearchRequestSchema, { query: 'q' })),
  );
  const off = fromBinary(
    SearchRequestSchema,
    toBinary(SearchRequestSchema, create(SearchRequestSchema, { query: 'q', rewrite: false })),
  );
  assert.equal(unset.rewrite, undefined);
  assert.equal(off.rewrite, false);
});

test('services expose the methods the design names', () => {
  assert.deepEqual(Object.keys(SearchService.method), ['search', 'getSnippet']);
  assert.deepEqual(Object.keys(IndexService.method).sort(), [
    'getIndexStatus',
    'startIndex',
    'watchIndexProgress',
  ]);
  assert.equal(IndexService.method.watchIndexProgress.methodKind, 'server_streaming');
  assert.deepEqual(Object.keys(SymbolService.method).sort(), ['getVocabulary', 'lookupSymbol']);
});
