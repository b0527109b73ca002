import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KeywordDoc, KeywordHit, KeywordQuery, SearchFilter } from '../ports.js';
import { openSqliteIndex } from '../sqlite-index.js';
import {
  MIN_SKIPPED_SHARE,
  PROBE_POSTINGS,
  PRUNE_MIN_CHUNKS,
  PRUNE_MIN_POSTINGS,
  probeTerms,
  requiredTerms,
  termBound,
} from './keyword-prune.js';
import type { KeywordStore } from './keyword-store.js';

const w = (term: string, boost = 1) => ({ term, boost });

describe('probeTerms and requiredTerms', () => {
  test('no probe on a small index, for a small query, or when the first term alone is over the probe budget', () => {
    const ok = new Map([
      ['rare', 10],
      ['wide', PRUNE_MIN_POSTINGS],
    ]);
    assert.notEqual(probeTerms([w('rare'), w('wide')], ok, PRUNE_MIN_CHUNKS, 10), null);
    assert.equal(probeTerms([w('rare'), w('wide')], ok, PRUNE_MIN_CHUNKS - 1, 10), null);
    const small = new Map([
      ['a', 10],
      ['b', PRUNE_MIN_POSTINGS / 2],
    ]);
    assert.equal(probeTerms([w('a'), w('b')], small, 100_000, 10), null);
    const wide = new Map([
      ['a', PROBE_POSTINGS + 1],
      ['b', PRUNE_MIN_POSTINGS],
    ]);
    assert.equal(probeTerms([w('a'), w('b')], wide, 100_000, 10), null);
  });

  test('no probe when its terms hold fewer rows than the limit, or could never leave enough out', () => {
    const df = new Map([
      ['rare', 5],
      ['wide', PRUNE_MIN_POSTINGS],
    ]);
    assert.deepEqual(
      probeTerms([w('rare'), w('wide')], df, 100_000, 5)?.map((t) => t.term),
      ['rare'],
    );
    assert.equal(probeTerms([w('rare'), w('wide')], df, 100_000, 6), null);
    // Terms of about the same rarity: leaving out half the postings takes two
    // bounds, above the most the one probe term can give.
    const flat = new Map([
      ['a', PROBE_POSTINGS],
      ['b', PRUNE_MIN_POSTINGS],
      ['c', PRUNE_MIN_POSTINGS],
    ]);
    const bounds = ['a', 'b', 'c'].map((t) => termBound(1, flat.get(t)!, 1_000_000));
    assert.ok(bounds[1]! + bounds[2]! > bounds[0]!);
    assert.equal(probeTerms([w('a'), w('b'), w('c')], flat, 1_000_000, 10), null);
  });

  test('the probe is the leading terms within the probe budget', () => {
    const df = new Map([
      ['rare', 10],
      ['less', PROBE_POSTINGS - 10],
      ['wide', PRUNE_MIN_POSTINGS],
    ]);
    assert.deepEqual(
      probeTerms([w('rare'), w('less'), w('wide')], df, 1_000_000, 10)?.map((t) => t.term),
      ['rare', 'less'],
    );
  });

  test('leaves out the lowest-bound terms whose bounds sum below the floor', () => {
    const total = 100_000;
    const df = new Map([
      ['rare', 5],
      ['wide', 20_000],
      ['wider', 30_000],
    ]);
    const terms = [w('rare'), w('wide'), w('wider')];
    const both = termBound(1, 20_000, total) + termBound(1, 30_000, total);
    assert.deepEqual(
      requiredTerms(terms, df, total, both * 1.01)?.map((t) => t.term),
      ['rare'],
    );
    // Just below the two bounds' sum only the wider term may be left out:
    // too few of the postings to pay (MIN_SKIPPED_SHARE).
    assert.ok(30_000 < (5 + 20_000 + 30_000) * MIN_SKIPPED_SHARE + 20_000);
    assert.deepEqual(
      requiredTerms(terms, df, total, both * 0.99)?.map((t) => t.term),
      ['rare', 'wide'],
    );
    assert.equal(requiredTerms(terms, df, total, 0.01), null);
  });
});

/** Seeded pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Words drawn with Zipf-like frequencies: a few in many chunks, most in few. */
function corpus(n: number, rnd: () => number): KeywordDoc[] {
  const vocab = Array.from({ length: 400 }, (_, i) => `w${i}`);
  const pick = () => vocab[Math.floor(vocab.length ** rnd()) - 1]!;
  return Array.from({ length: n }, (_, i) => {
    const len = 3 + Math.floor(rnd() * 60);
    const words = Array.from({ length: len }, pick);
    return {
      id: `c${i}`,
      path: `${i % 3 === 0 ? 'lib' : 'src'}/m${i % 17}.ts`,
      language: i % 4 === 0 ? 'go' : 'typescript',
      startLine: 1,
      endLine: 2,
      symbol: rnd() < 0.2 ? pick() : null,
      kind: 'block',
      content: words.join(' '),
      context: rnd() < 0.3 ? `${pick()} ${pick()}` : '',
    };
  });
}

describe('pruned and scoped keyword search', () => {
  test('answers exactly as scoring every matching row, and engages', async () => {
    const ix = openSqliteIndex(':memory:');
    try {
      const rnd = random(18);
      // Above PRUNE_MIN_CHUNKS, where pruning applies.
      await ix.keyword.upsert(corpus(PRUNE_MIN_CHUNKS, rnd));
      const store = (ix as unknown as { kw: KeywordStore }).kw;
      const boosts = [1, 1, 0.5, 0.3];
      let compared = 0;
      for (let i = 0; i < 120; i++) {
        const n = 3 + Math.floor(rnd() * 10);
        const terms = Array.from({ length: n }, () => ({
          term: `w${Math.floor(200 ** rnd())}`,
          boost: boosts[Math.floor(rnd() * boosts.length)]!,
        }));
        const q: KeywordQuery = {
          terms,
          limit: [1, 5, 10, 50][i % 4]!,
          ...(i % 5 === 1 ? { filter: { languages: ['go'] } } : {}),
          ...(i % 5 === 2 ? { filter: { pathPrefixes: ['lib/'] } } : {}),
          ...(i % 5 === 3 ? { filter: { excludePathPrefixes: ['src/m1'] } } : {}),
          // One file name of 17 in lib/: a narrow scope (keyword-scope.ts).
          ...(i % 5 === 4 ? { filter: { pathPrefixes: ['lib/m3', 'lib/m4.'] } } : {}),
        };
        store.prune = false;
        const full = await ix.keyword.search(q);
        store.prune = true;
        const pruned = await ix.keyword.search(q);
        assert.deepEqual(pruned, full, `query ${i}: ${JSON.stringify(q)}`);
        compared++;
      }
      assert.equal(compared, 120);
      // Not a vacuous comparison: most of these searches ran pruned, the
      // narrow path filters scored their scope only.
      assert.ok(store.prunedSearches >= 40, `pruned ${store.prunedSearches} of 120`);
      assert.ok(store.scopedSearches >= 20, `scoped ${store.scopedSearches} of 120`);
    } finally {
      ix.close();
    }
  });

  test('a filter answers as the unfiltered ranking with the rows it drops taken out', async () => {
    const ix = openSqliteIndex(':memory:');
    try {
      const rnd = random(7);
      await ix.keyword.upsert(corpus(3000, rnd));
      const store = (ix as unknown as { kw: KeywordStore }).kw;
      const keeps = (f: SearchFilter, h: KeywordHit) =>
        (f.languages?.includes(h.language) ?? true) &&
        (f.pathPrefixes?.some((p) => h.path.startsWith(p)) ?? true) &&
        !(f.excludePathPrefixes?.some((p) => h.path.startsWith(p)) ?? false);
      // Filters keeping most rows (their probe suffices: src/ is two thirds, typescript
      // three quarters) and filters keeping few (go, lib/m3: the probe comes back short).
      const filters: SearchFilter[] = [
        { excludePathPrefixes: ['src/m1'] },
        { excludePathPrefixes: ['src/'] },
        { excludePathPrefixes: ['lib/', 'src/m2'] },
        { languages: ['typescript'] },
        { pathPrefixes: ['src/'] },
        { languages: ['typescript'], excludePathPrefixes: ['lib/m4.'] },
        { languages: ['go'] },
        { languages: ['go'], pathPrefixes: ['lib/m3'] },
      ];
      for (const filter of filters) {
        for (let i = 0; i < 30; i++) {
          const terms = Array.from({ length: 2 + (i % 4) }, () => ({
            term: `w${Math.floor(100 ** rnd())}`,
            boost: 1,
          }));
          const limit = [1, 5, 10, 40][i % 4]!;
          const got = await ix.keyword.search({ terms, limit, filter });
          const all = await ix.keyword.search({ terms, limit: 3000 });
          const want = all.filter((h) => keeps(filter, h)).slice(0, limit);
          assert.deepEqual(
            got,
            want,
            `${JSON.stringify(filter)} ${JSON.stringify(terms)} ${limit}`,
          );
        }
      }
      // The broad filters were answered from their probe, and a filter whose probe came
      // back short was not probed for a while: a few short probes per narrow filter.
      assert.ok(store.probedFilters >= 100, `probed ${store.probedFilters} of 180 broad searches`);
      assert.ok(store.shortProbes <= 10, `short probes ${store.shortProbes}`);
      assert.ok(store.shortProbes >= 2, `short probes ${store.shortProbes}`);
    } finally {
      ix.close();
    }
  });
});
