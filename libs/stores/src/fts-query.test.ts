import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeTerms } from './fts-query.js';

const terms = [
  { term: 'Graph' },
  { term: 'graph', boost: 2 },
  { term: 'add edge' },
  { term: '--' },
  { term: '' },
  { term: 'x', boost: 0 },
  { term: 'y', boost: Number.NaN },
  { term: 'Graph', boost: 0.5 },
];

test('terms that cannot match are dropped and duplicates keep the highest boost, in first-seen order', () => {
  // FTS5 tokenizes a quoted term itself: case and inner spaces are left to it.
  assert.deepEqual(normalizeTerms(terms), [
    { term: 'Graph', boost: 1 },
    { term: 'graph', boost: 2 },
    { term: 'add edge', boost: 1 },
  ]);
});

test('exact: lowercased and whitespace-free, for term queries that skip the analyzer', () => {
  assert.deepEqual(normalizeTerms(terms, { exact: true }), [{ term: 'graph', boost: 2 }]);
});
