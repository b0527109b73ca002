import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HistoryMatch } from '@codesift/stores';
import { historyRanks, rarity, withHistory } from './history-prior.js';
import { HISTORY_RRF_K, HISTORY_WEIGHT, planHistory } from './planning/history.js';
import type { PlannedTerm } from './planning/types.js';

/** A commit of `score` changing `paths`, each changed by one of `stored` commits. */
const match = (score: number, paths: string[], stored = 0): HistoryMatch => ({
  sha: `s${score}`,
  time: 0,
  score,
  files: paths.map((path) => ({ path, commits: 1 })),
  stored,
});

describe('historyRanks', () => {
  test("a commit's score is shared over its files by their count's square root", () => {
    const ranks = historyRanks(
      [match(4, ['a.ts', 'b.ts', 'c.ts', 'd.ts']), match(3, ['e.ts'])],
      20,
    );
    // e.ts: 3; a..d: 4 / 2 = 2 each.
    assert.deepEqual(
      [...ranks],
      [
        ['e.ts', 1],
        ['a.ts', 2],
        ['b.ts', 3],
        ['c.ts', 4],
        ['d.ts', 5],
      ],
    );
  });

  test('votes add up over commits; tests get none; sweeping commits cast none', () => {
    const ranks = historyRanks(
      [
        match(5, ['lib/x.js', 'test/x.test.js']),
        match(2, ['lib/y.js']),
        match(2, ['lib/y.js']),
        match(100, ['a', 'b', 'c', 'd']),
      ],
      3,
    );
    assert.deepEqual(
      [...ranks],
      [
        ['lib/x.js', 1],
        ['lib/y.js', 2],
      ],
    );
    assert.equal(historyRanks([match(1, ['tests/test_only.py'])], 20).size, 0);
  });
});

describe('rarity', () => {
  test('a file most commits change counts least; one no commit counts fully', () => {
    assert.equal(rarity(0, 0), 1, 'no stored history: every vote counts');
    assert.ok(Math.abs(rarity(0, 5000) - 1) < 1e-12);
    const once = rarity(1, 5000);
    const often = rarity(50, 5000);
    const always = rarity(2500, 5000);
    assert.ok(once > 0.9 && once < 1, `${once}`);
    assert.ok(often > 0.5 && often < 0.6, `${often}`);
    assert.ok(always < 0.15, `${always}`);
  });

  test('between two equal votes, the file fewer commits change ranks first', () => {
    const votes: HistoryMatch[] = [
      {
        sha: 'a',
        time: 0,
        score: 2,
        files: [
          { path: 'README.md', commits: 900 },
          { path: 'src/rare.ts', commits: 3 },
        ],
        stored: 1000,
      },
    ];
    assert.deepEqual(
      [...historyRanks(votes, 20)],
      [
        ['src/rare.ts', 1],
        ['README.md', 2],
      ],
    );
  });
});

describe('withHistory', () => {
  const plan = { weight: HISTORY_WEIGHT, k: HISTORY_RRF_K };
  const items = (...paths: string[]) => paths.map((path, i) => ({ path, id: i }));

  test('a file the history ranks first moves up past near ties', () => {
    const ranked = items('a', 'b', 'c', 'd', 'e', 'f', 'g');
    const out = withHistory(ranked, new Map([['d', 1]]), plan).map((x) => x.path);
    // d at position 4: 1/9 + 0.3/6 = .161 passes b (1/7 = .143) and c; a keeps the first place.
    assert.deepEqual(out, ['a', 'd', 'b', 'c', 'e', 'f', 'g']);
    // g at position 7 and history rank 20: 1/12 + 0.3/25 = .095 passes f (1/11 = .091) only.
    const far = withHistory(ranked, new Map([['g', 20]]), plan).map((x) => x.path);
    assert.deepEqual(far, ['a', 'b', 'c', 'd', 'e', 'g', 'f'], 'a weak vote moves one place');
  });

  test('a file out of focus gets its vote times its focus multiplier', () => {
    const ranked = (readme: number) => [
      { path: 'src/x.ts', focusMultiplier: 1 },
      { path: 'src/a.ts', focusMultiplier: 1 },
      { path: 'README.md', focusMultiplier: readme },
      { path: 'src/b.ts', focusMultiplier: 1 },
    ];
    const ranks = new Map([['README.md', 1]]);
    const order = (readme: number) => withHistory(ranked(readme), ranks, plan).map((x) => x.path);
    // In focus: 1/8 + 0.3/6 = .175 passes a (1/7 = .143); at 0.2: 1/8 + 0.2 x 0.3/6 = .135 does not.
    assert.deepEqual(order(1), ['src/x.ts', 'README.md', 'src/a.ts', 'src/b.ts']);
    assert.deepEqual(order(0.2), ['src/x.ts', 'src/a.ts', 'README.md', 'src/b.ts']);
  });

  test("the first place stays the code side's", () => {
    const ranked = items('a', 'b', 'c');
    assert.deepEqual(
      withHistory(ranked, new Map([['c', 1]]), plan).map((x) => x.path),
      ['a', 'c', 'b'],
    );
    assert.deepEqual(
      withHistory(items('a', 'b'), new Map([['b', 1]]), plan).map((x) => x.path),
      ['a', 'b'],
    );
  });

  test("a file's chunks move together and keep their order; no ranks, no change", () => {
    const ranked = [
      { path: 'x', id: 1 },
      { path: 'y', id: 2 },
      { path: 'z', id: 3 },
      { path: 'y', id: 4 },
    ];
    // y at 4: 1/9 + 0.3/6 = .161 passes z at 3 (1/8 = .125); y at 2 keeps its place.
    const out = withHistory(ranked, new Map([['y', 1]]), plan).map((x) => x.id);
    assert.deepEqual(out, [1, 2, 4, 3]);
    assert.deepEqual(
      withHistory(ranked, new Map(), plan).map((x) => x.id),
      [1, 2, 3, 4],
    );
  });
});

describe('planHistory', () => {
  const term = (t: string, source: PlannedTerm['source']): PlannedTerm => ({
    term: t,
    weight: 1,
    source,
    from: t,
  });
  const terms = [
    term('handler', 'original'),
    term('handle', 'synonym'),
    term('handler', 'original'),
  ];

  test("searches the query's own terms, once each", () => {
    const { plan, reason } = planHistory(terms, false, true);
    assert.equal(plan.enabled, true);
    assert.deepEqual(plan.terms, ['handler']);
    assert.match(reason, /^history: the files of the 30 commits/);
  });

  test('off for an identifier-only query, when switched off, and without own terms', () => {
    assert.equal(planHistory(terms, true, true).plan.enabled, false);
    assert.equal(planHistory(terms, false, false).plan.enabled, false);
    assert.equal(planHistory([term('handle', 'synonym')], false, true).plan.enabled, false);
  });
});
