import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aggregateCoverage, scoreCoverage } from './coverage.js';

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

describe('answer coverage', () => {
  const answer = [
    { path: 'a.c', ranges: [{ start: 10, end: 19 }] },
    { path: 'b.c', ranges: [{ start: 1, end: 10 }] },
  ];

  test('counts answering lines inside the returned ranges once each', () => {
    const s = scoreCoverage(
      [
        { path: 'a.c', startLine: 1, endLine: 14 },
        { path: 'a.c', startLine: 12, endLine: 30 },
        { path: 'x.c', startLine: 1, endLine: 100 },
      ],
      answer,
    );
    // a.c lines 10..19 are all covered (overlap counted once), b.c none: 10 of 20.
    close(s.atHits, 0.5, 'coverage at 10 hits');
    assert.equal(s.linesReturned, 14 + 19 + 100);
  });

  test('the line budget stops at its size, cutting the last range, so long hits gain nothing', () => {
    const long = scoreCoverage(
      [
        { path: 'x.c', startLine: 1, endLine: 395 },
        { path: 'b.c', startLine: 1, endLine: 40 },
      ],
      answer,
      { budgetLines: 400 },
    );
    // 395 lines of x.c, then only b.c lines 1..5 fit: 5 of 20 answering lines.
    close(long.atBudget, 0.25, 'coverage at 400 lines');
    close(long.atHits, 0.5, 'both hits count in full at 10 hits');
  });

  test('only the first hits count at 10 hits', () => {
    const many = Array.from({ length: 10 }, (_, i) => ({
      path: 'x.c',
      startLine: i + 1,
      endLine: i + 1,
    }));
    const s = scoreCoverage([...many, { path: 'a.c', startLine: 10, endLine: 19 }], answer);
    assert.equal(s.atHits, 0, 'the 11th hit is beyond the list');
    close(s.atBudget, 0.5, 'but within the line budget');
  });

  test('at matched lines: the first N returned lines, read like the budget', () => {
    const returned = [
      { path: 'x.c', startLine: 1, endLine: 30 },
      { path: 'a.c', startLine: 1, endLine: 40 },
    ];
    // 30 lines of x.c, then a.c lines 1..14: its answer lines 10..14, 5 of 20.
    close(scoreCoverage(returned, answer, { matchLines: 44 }).atMatchedLines!, 0.25, 'at 44');
    close(scoreCoverage(returned, answer, { matchLines: 30 }).atMatchedLines!, 0, 'at 30');
    assert.equal(scoreCoverage(returned, answer).atMatchedLines, undefined, 'only when asked');
    const agg = aggregateCoverage([
      scoreCoverage(returned, answer, { matchLines: 44 }),
      scoreCoverage(returned, answer),
    ]);
    close(agg!.atMatchedLines!, 0.25, 'mean over the queries that have it');
  });

  test('means leave out queries without line answers', () => {
    const s = scoreCoverage([{ path: 'b.c', startLine: 1, endLine: 10 }], answer);
    const agg = aggregateCoverage([s, undefined]);
    assert.equal(agg?.count, 1);
    close(agg!.atHits, 0.5, 'mean coverage');
    assert.equal(aggregateCoverage([undefined]), undefined);
  });
});
