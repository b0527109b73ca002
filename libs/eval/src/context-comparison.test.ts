import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContextSummary } from '@codesift/context';
import { rankChange, sumContextSummaries } from './context-comparison.js';

function summary(over: Partial<ContextSummary>): ContextSummary {
  return {
    mode: 'llm',
    model: 'm',
    modelAnswered: null,
    calls: 0,
    cacheHits: 0,
    sources: { llm: 0, pattern: 0 },
    fallbacks: {},
    ...over,
  };
}

test('context summaries of several checkouts add up; the model answered if it answered once', () => {
  const total = sumContextSummaries('llm', 'm', [
    summary({
      modelAnswered: false,
      calls: 5,
      sources: { llm: 0, pattern: 7 },
      fallbacks: { error: 5, 'breaker-open': 2 },
    }),
    undefined,
    summary({
      modelAnswered: true,
      calls: 3,
      cacheHits: 4,
      sources: { llm: 6, pattern: 1 },
      fallbacks: { error: 1 },
    }),
    summary({}),
  ]);
  assert.deepEqual(total, {
    mode: 'llm',
    model: 'm',
    modelAnswered: true,
    calls: 8,
    cacheHits: 4,
    sources: { llm: 6, pattern: 8 },
    fallbacks: { error: 6, 'breaker-open': 2 },
  });
  assert.equal(
    sumContextSummaries('llm', 'm', [summary({ modelAnswered: false })]).modelAnswered,
    false,
  );
  assert.equal(sumContextSummaries('pattern', null, [summary({})]).modelAnswered, null);
});

test('a miss ranks below every hit', () => {
  assert.equal(rankChange(null, 4), 'better');
  assert.equal(rankChange(2, null), 'worse');
  assert.equal(rankChange(null, null), 'same');
  assert.equal(rankChange(3, 1), 'better');
});
