import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeElasticsearch } from './fake-elasticsearch.js';

/** Lucene's BM25 for one term (k1 1.2, b 0.75), written out for the check. */
function bm25(
  tf: number,
  length: number,
  avgLength: number,
  docs: number,
  withTerm: number,
): number {
  const idf = Math.log(1 + (docs - withTerm + 0.5) / (withTerm + 0.5));
  return (idf * tf) / (tf + 1.2 * (1 - 0.75 + (0.75 * length) / avgLength));
}

test('a term query scores BM25 over the index, not term counts', async () => {
  const es = startFakeElasticsearch();
  await es.client.indices.create({ index: 'k' });
  const docs: Record<string, string> = {
    short: 'alpha beta',
    long: 'alpha alpha alpha gamma delta epsilon zeta eta theta iota kappa lambda',
    other: 'beta',
  };
  for (const [id, code] of Object.entries(docs)) {
    await es.client.index({ index: 'k', id, document: { terms: { code } } });
  }
  const res = await es.client.search({
    index: 'k',
    query: { term: { 'terms.code': { value: 'alpha', boost: 2 } } },
  });
  const scores = Object.fromEntries(res.hits.hits.map((h) => [h._id, h._score]));
  const avg = (2 + 12 + 1) / 3;
  assert.deepEqual(Object.keys(scores).sort(), ['long', 'short']);
  assert.ok(Math.abs(scores.short! - 2 * bm25(1, 2, avg, 3, 2)) < 1e-9, JSON.stringify(scores));
  assert.ok(Math.abs(scores.long! - 2 * bm25(3, 12, avg, 3, 2)) < 1e-9, JSON.stringify(scores));
  // Length normalization: three occurrences in a long doc are not three times one in a short one.
  assert.ok(scores.long! < 3 * scores.short!);
});
