import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathPrefixes, toQdrantFilter } from './filters.js';
import { pointId } from './ids.js';

test('point ids are deterministic version-5 UUIDs, distinct per chunk id', () => {
  const a = pointId('src/a.ts#1');
  assert.equal(a, pointId('src/a.ts#1'));
  assert.notEqual(a, pointId('src/a.ts#2'));
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('path prefixes are every character prefix, never splitting a surrogate pair', () => {
  assert.deepEqual(pathPrefixes('src/a'), ['s', 'sr', 'src', 'src/', 'src/a']);
  assert.deepEqual(pathPrefixes('d/😀'), ['d', 'd/', 'd/😀']);
  assert.deepEqual(pathPrefixes(''), []);
});

test('filters: empty lists do not restrict, the empty prefix matches all', () => {
  assert.equal(toQdrantFilter(undefined), undefined);
  assert.equal(
    toQdrantFilter({ languages: [], pathPrefixes: [], excludePathPrefixes: [] }),
    undefined,
  );
  assert.equal(toQdrantFilter({ pathPrefixes: ['src/', ''] }), undefined);
  assert.equal(toQdrantFilter({ excludePathPrefixes: [''] }), null);
  assert.deepEqual(toQdrantFilter({ excludePathPrefixes: ['a', 'a'] }), {
    must_not: [{ key: 'path_prefixes', match: { any: ['a'] } }],
  });
});
