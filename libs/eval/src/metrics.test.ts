import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  aggregate,
  aggregateChunks,
  collapseToFiles,
  median,
  ndcgAt,
  percentile,
  scoreChunkList,
  scoreQuery,
} from './metrics.js';

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

describe('metrics', () => {
  test('a chunk ranking collapses to files at the rank of their best chunk', () => {
    assert.deepEqual(collapseToFiles(['a', 'a', 'b', 'a', 'c']), ['a', 'b', 'c']);
    // c is the 5th chunk but the 3rd file.
    assert.equal(scoreQuery(['a', 'a', 'b', 'a', 'c'], ['c']).firstRelevantRank, 3);
  });

  test('one of two relevant files at rank 3', () => {
    const s = scoreQuery(['a', 'b', 'c', 'd', 'e', 'f'], ['c', 'x']);
    assert.equal(s.firstRelevantRank, 3);
    assert.equal(s.acc1, 0);
    assert.equal(s.acc5, 1);
    assert.equal(s.acc10, 1);
    close(s.recall5, 0.5, 'recall@5');
    close(s.recall10, 0.5, 'recall@10');
    close(s.mrr10, 1 / 3, 'MRR@10');
    // DCG = 1/log2(4) = 0.5; ideal = 1/log2(2) + 1/log2(3).
    close(s.ndcg10, 0.5 / (1 + 1 / Math.log2(3)), 'nDCG@10');
  });

  test('the relevant file at rank 6 counts for @10 only, at rank 11 not at all', () => {
    const ranking = ['a', 'b', 'c', 'd', 'e', 'hit', 'g', 'h', 'i', 'j', 'late'];
    const s = scoreQuery(ranking, ['hit']);
    assert.deepEqual([s.acc1, s.acc5, s.acc10], [0, 0, 1]);
    close(s.mrr10, 1 / 6, 'MRR@10');
    const late = scoreQuery(ranking, ['late']);
    assert.equal(late.firstRelevantRank, 11);
    assert.deepEqual([late.acc10, late.recall10, late.mrr10, late.ndcg10], [0, 0, 0, 0]);
  });

  test('nothing relevant returned scores zero everywhere', () => {
    const s = scoreQuery([], ['x']);
    assert.equal(s.firstRelevantRank, null);
    assert.deepEqual(
      [s.acc1, s.acc5, s.acc10, s.recall5, s.recall10, s.mrr10, s.ndcg10],
      [0, 0, 0, 0, 0, 0, 0],
    );
  });

  test('graded nDCG uses 2^g - 1 gains against the ideal order', () => {
    const s = scoreQuery(['b', 'a'], ['a', 'b'], { a: 2, b: 1 });
    // DCG = 1/1 + 3/log2(3); ideal = 3/1 + 1/log2(3).
    close(s.ndcg10, (1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3)), 'graded nDCG');
    close(scoreQuery(['a', 'b'], ['a', 'b'], { a: 2, b: 1 }).ndcg10, 1, 'ideal order');
    close(ndcgAt(10, [0, 1], [1]), 1 / Math.log2(3), 'binary nDCG at rank 2');
  });

  test('percentiles and medians', () => {
    const values = Array.from({ length: 20 }, (_, i) => 20 - i); // 20..1, unsorted on purpose
    assert.equal(percentile(values, 95), 19);
    assert.equal(percentile(values, 100), 20);
    assert.equal(percentile([7], 95), 7);
    assert.equal(percentile([], 95), 0);
    assert.equal(median([1, 3, 2, 4]), 2.5);
    assert.equal(median([5, 1, 3]), 3);
  });

  test('aggregate averages per-query scores and summarises latency', () => {
    const rows = [
      { scores: scoreQuery(['x'], ['x']), latencyMs: 10 },
      { scores: scoreQuery(['a', 'x'], ['x']), latencyMs: 30 },
      { scores: scoreQuery(['a'], ['x']), latencyMs: 20 },
    ];
    const a = aggregate(rows);
    assert.equal(a.count, 3);
    close(a.acc1, 1 / 3, 'Acc@1');
    close(a.acc5, 2 / 3, 'Acc@5');
    close(a.mrr10, (1 + 0.5 + 0) / 3, 'MRR@10');
    assert.deepEqual(a.latencyMs, { median: 20, p95: 30, mean: 20 });
    assert.equal(aggregate([]).acc1, 0);
  });

  test('a chunk list is scored as returned: repeated files keep their ranks', () => {
    // The relevant file's first chunk is the 4th chunk, though the 2nd file.
    const s = scoreChunkList(['a', 'a', 'a', 'hit', 'hit', 'b'], ['hit']);
    assert.equal(s.firstRelevantRank, 4);
    assert.equal(s.acc1, 0);
    assert.equal(s.acc5, 1);
    close(s.mrr10, 0.25, 'MRR@10');
    close(s.precision10, 0.2, 'two of ten chunks are hits');
    assert.equal(scoreQuery(['a', 'a', 'a', 'hit'], ['hit']).firstRelevantRank, 2);
    const late = scoreChunkList([...Array(10).fill('a'), 'hit'], ['hit']);
    assert.equal(late.firstRelevantRank, null, 'the 11th chunk is beyond the list');
    const agg = aggregateChunks([
      { scores: s, latencyMs: 2 },
      { scores: late, latencyMs: 4 },
    ]);
    close(agg.acc5, 0.5, 'mean Acc@5');
    close(agg.mrr10, 0.125, 'mean MRR@10');
    close(agg.latencyMs.median, 3, 'median latency');
  });
});
