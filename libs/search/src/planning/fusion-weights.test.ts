import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adaptiveVectorWeight } from './fusion-weights.js';

test('adaptive weights: hand-computed points and clamps', () => {
  assert.equal(adaptiveVectorWeight(0), 0.8);
  assert.equal(adaptiveVectorWeight(0.5), 0.5);
  assert.equal(adaptiveVectorWeight(1), 0.2);
  assert.equal(adaptiveVectorWeight(-3), 0.8);
  assert.equal(adaptiveVectorWeight(7), 0.2);
  assert.equal(adaptiveVectorWeight(Number.NaN), 0.8);
});

test('adaptive weights are monotone (non-increasing) in specificity', () => {
  let prev = Number.POSITIVE_INFINITY;
  for (let i = 0; i <= 1000; i++) {
    const w = adaptiveVectorWeight(i / 1000);
    assert.ok(w <= prev, `at ${i / 1000}: ${w} > ${prev}`);
    assert.ok(w >= 0.2 && w <= 0.8);
    prev = w;
  }
});
