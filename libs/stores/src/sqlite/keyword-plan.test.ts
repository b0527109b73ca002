import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyzeQuery } from '@codesift/analysis';
import type { KeywordDoc } from '../ports.js';
import { openSqliteIndex } from '../sqlite-index.js';
import {
  KEYWORD_POSTINGS_BUDGET,
  MAX_KEYWORD_TERMS,
  MIN_CHUNKS_FOR_COMMON_PRUNING,
  planTerms,
} from './keyword-plan.js';

const w = (term: string, boost = 1) => ({ term, boost });

describe('planTerms', () => {
  test('drops absent terms and common terms while a selective one remains', () => {
    const df = new Map([
      ['return', 6000],
      ['the', 9000],
      ['zephyr', 30],
    ]);
    const plan = planTerms([w('return'), w('the'), w('zephyr'), w('nothere')], df, 10_000);
    assert.deepEqual(
      plan.terms.map((t) => t.term),
      ['zephyr'],
    );
    assert.deepEqual(plan.absent, ['nothere']);
    assert.deepEqual(plan.common.sort(), ['return', 'the']);
  });

  test('keeps common terms when nothing more selective is left', () => {
    const df = new Map([
      ['return', 6000],
      ['the', 9000],
    ]);
    const plan = planTerms([w('the'), w('return')], df, 10_000);
    assert.deepEqual(
      plan.terms.map((t) => t.term),
      ['return', 'the'],
    );
  });

  test('keeps rarest and highest-boosted terms within the postings budget', () => {
    const df = new Map<string, number>();
    const terms = [];
    for (let i = 0; i < 40; i++) {
      df.set(`t${i}`, 1000 * (i + 1));
      terms.push(w(`t${i}`));
    }
    const plan = planTerms(terms, df, 1_000_000, { postingsBudget: 10_000 });
    assert.deepEqual(
      plan.terms.map((t) => t.term),
      ['t0', 't1', 't2', 't3'],
    );
    assert.equal(plan.postings, 10_000);
    assert.equal(plan.overBudget.length, 36);
    // A boost can lift a more common term above a rarer one.
    const boosted = planTerms([w('t0'), w('t5', 5)], df, 1_000_000, { postingsBudget: 6000 });
    assert.deepEqual(
      boosted.terms.map((t) => t.term),
      ['t5'],
    );
  });

  test('keeps common terms on a small index, where pruning buys no speed', () => {
    const df = new Map([
      ['return', 60],
      ['zephyr', 3],
    ]);
    assert.ok(100 < MIN_CHUNKS_FOR_COMMON_PRUNING);
    const plan = planTerms([w('return'), w('zephyr')], df, 100);
    assert.deepEqual(
      plan.terms.map((t) => t.term),
      ['zephyr', 'return'],
    );
    assert.deepEqual(plan.common, []);
  });

  test('always keeps the best term, even over budget, and caps the term count', () => {
    const df = new Map([['huge', 400_000]]);
    assert.deepEqual(
      planTerms([w('huge')], df, 1_000_000).terms.map((t) => t.term),
      ['huge'],
    );
    const many = Array.from({ length: 200 }, (_, i) => w(`r${i}`));
    const rare = new Map(many.map((t) => [t.term, 1]));
    const plan = planTerms(many, rare, 1_000_000);
    assert.equal(plan.terms.length, MAX_KEYWORD_TERMS);
    assert.ok(plan.postings <= KEYWORD_POSTINGS_BUDGET);
  });
});

function doc(id: string, content: string): KeywordDoc {
  return {
    id,
    path: `src/${id}.ts`,
    language: 'typescript',
    startLine: 1,
    endLine: 2,
    symbol: null,
    kind: 'block',
    content,
    context: '',
  };
}

describe('keyword query planning in the SQLite index', () => {
  const terms = (q: string) => analyzeQuery(q).map((term) => ({ term }));

  test('a common term no longer drags in every chunk; a selective term ranks the same', async () => {
    const ix = openSqliteIndex(':memory:');
    try {
      const docs: KeywordDoc[] = [];
      // Large enough for common-term pruning to apply.
      for (let i = 0; i < MIN_CHUNKS_FOR_COMMON_PRUNING; i++)
        docs.push(doc(`c${i}`, `return value${i} plain`));
      for (let i = 0; i < 3; i++) docs.push(doc(`r${i}`, `return zephyr ${'zephyr '.repeat(i)}`));
      await ix.keyword.upsert(docs);
      const alone = await ix.keyword.search({ terms: terms('zephyr'), limit: 100 });
      const mixed = await ix.keyword.search({ terms: terms('return zephyr'), limit: 100 });
      assert.deepEqual(
        mixed.map((h) => h.id),
        alone.map((h) => h.id),
      );
      assert.deepEqual(
        mixed.map((h) => h.score),
        alone.map((h) => h.score),
      );
      assert.equal(mixed.length, 3);
      // On its own the common term still answers.
      assert.equal(
        (await ix.keyword.search({ terms: terms('return'), limit: 5000 })).length,
        MIN_CHUNKS_FOR_COMMON_PRUNING + 3,
      );
    } finally {
      ix.close();
    }
  });

  test('document frequencies follow writes (the cache is invalidated)', async () => {
    const ix = openSqliteIndex(':memory:');
    try {
      const docs: KeywordDoc[] = [];
      const n = MIN_CHUNKS_FOR_COMMON_PRUNING;
      for (let i = 0; i < n; i++) docs.push(doc(`a${i}`, `alpha filler${i}`));
      docs.push(doc('b0', 'alpha bravo'));
      await ix.keyword.upsert(docs);
      // alpha is in every chunk: only bravo runs.
      assert.deepEqual(
        (await ix.keyword.search({ terms: terms('alpha bravo'), limit: 50 })).map((h) => h.id),
        ['b0'],
      );
      const more: KeywordDoc[] = [];
      for (let i = 0; i < 3 * n; i++) more.push(doc(`x${i}`, `other text${i}`));
      await ix.keyword.upsert(more);
      // Now alpha is in a quarter of the chunks: selective again, so its chunks match too.
      const hits = await ix.keyword.search({ terms: terms('alpha bravo'), limit: 5000 });
      assert.equal(hits[0]!.id, 'b0');
      assert.equal(hits.length, n + 1);
    } finally {
      ix.close();
    }
  });
});
