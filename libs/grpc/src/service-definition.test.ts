import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, isMessage } from '@bufbuild/protobuf';
import {
  IndexService,
  SearchRequestSchema,
  SearchResponseSchema,
  SearchService,
  SymbolService,
  WatchIndexProgressResponseSchema,
} from '@codesift/proto';
import { grpcServiceDefinition } from './service-definition.js';

test('every RPC gets its path, streaming flags and codecs from the descriptor', () => {
  const search = grpcServiceDefinition(SearchService);
  assert.deepEqual(Object.keys(search), ['search', 'getSnippet']);
  assert.equal(search.search.path, '/codesift.v1.SearchService/Search');
  assert.equal(search.getSnippet.path, '/codesift.v1.SearchService/GetSnippet');
  assert.equal(search.search.originalName, 'search');
  assert.equal(search.search.requestStream, false);
  assert.equal(search.search.responseStream, false);

  const index = grpcServiceDefinition(IndexService);
  assert.deepEqual(Object.keys(index), ['startIndex', 'getIndexStatus', 'watchIndexProgress']);
  assert.equal(index.watchIndexProgress.path, '/codesift.v1.IndexService/WatchIndexProgress');
  assert.equal(index.watchIndexProgress.responseStream, true);
  assert.equal(index.watchIndexProgress.requestStream, false);
  assert.equal(index.getIndexStatus.responseStream, false);

  const symbols = grpcServiceDefinition(SymbolService);
  assert.equal(symbols.lookupSymbol.path, '/codesift.v1.SymbolService/LookupSymbol');
  assert.equal(symbols.getVocabulary.path, '/codesift.v1.SymbolService/GetVocabulary');
  assert.equal(grpcServiceDefinition(SearchService), search, 'cached per service');
});

test('codecs round-trip messages and accept plain init objects', () => {
  const { search } = grpcServiceDefinition(SearchService);
  const request = create(SearchRequestSchema, { query: 'addEdge', limit: 3, explain: true });
  const back = search.requestDeserialize(search.requestSerialize(request));
  assert.ok(isMessage(back, SearchRequestSchema));
  assert.equal(back.query, 'addEdge');
  assert.equal(back.limit, 3);
  assert.equal(back.explain, true);

  const plain = { results: [{ path: 'a.ts', score: 1.5 }], totalChunks: 7n };
  const bytes = search.responseSerialize(plain as never);
  assert.ok(Buffer.isBuffer(bytes));
  const res = search.responseDeserialize(bytes);
  assert.ok(isMessage(res, SearchResponseSchema));
  assert.equal(res.results[0]!.path, 'a.ts');
  assert.equal(res.totalChunks, 7n);

  const { watchIndexProgress } = grpcServiceDefinition(IndexService);
  const msg = watchIndexProgress.responseDeserialize(
    watchIndexProgress.responseSerialize(
      create(WatchIndexProgressResponseSchema, { progress: { jobId: 'j', chunks: 5n } }),
    ),
  );
  assert.equal(msg.progress?.chunks, 5n);
});
