import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { checkedQuery, planOptions } from './options.js';
import { NO_PLANNING } from './planning/plan-query.js';
import { PLANNER_SWITCHES } from './planning/switches.js';
import type { SearchRequest } from './types.js';

const isInvalid = (message: RegExp) => (err: unknown) =>
  err instanceof CodesiftError && err.code === 'INVALID_ARGUMENT' && message.test(err.message);

describe('planOptions', () => {
  it('passes each planner switch a request sets, and leaves unset ones to the config', () => {
    for (const k of PLANNER_SWITCHES) {
      assert.equal(planOptions({ query: 'x', [k]: false }, true)[k], false, k);
      assert.equal(planOptions({ query: 'x', [k]: true }, true)[k], true, k);
      assert.equal(k in planOptions({ query: 'x' }, true), false, k);
    }
  });

  it('planning: false turns every planner feature off, except what the request sets itself', () => {
    const off = planOptions({ query: 'x', planning: false }, true);
    for (const [k, v] of Object.entries(NO_PLANNING)) {
      assert.equal(off[k as keyof typeof off], v, k);
    }
    const anchorsKept = planOptions({ query: 'x', planning: false, anchors: true }, true);
    assert.equal(anchorsKept.anchors, true);
    assert.equal(anchorsKept.expansion, false);
  });

  it('clamps the limit and carries the vector side, filters and flags', () => {
    const o = planOptions(
      {
        query: 'x',
        limit: 500.5,
        keywordOnly: true,
        collapseFiles: true,
        filter: { languages: ['go'] },
      },
      false,
    );
    assert.deepEqual(o, {
      limit: 100,
      vectorAvailable: false,
      keywordOnly: true,
      collapseFiles: true,
      filter: { languages: ['go'] },
    });
    assert.equal(planOptions({ query: 'x', limit: 7.9 }, true).limit, 7);
  });

  it('refuses bad values with the option named', () => {
    const bad: [Partial<SearchRequest>, RegExp][] = [
      [{ limit: 0 }, /^limit/],
      [{ limit: Number.NaN }, /^limit/],
      [{ fusion: 'best' as never }, /unknown fusion/],
      [{ vectorWeight: 1.5 }, /^vectorWeight/],
      [{ rrfK: 0 }, /^rrfK/],
      [{ focus: 'docs' as never }, /unknown focus/],
      [{ fileScore: 'worst' as never }, /unknown fileScore/],
    ];
    for (const [request, message] of bad) {
      assert.throws(() => planOptions({ query: 'x', ...request }, true), isInvalid(message));
    }
  });
});

describe('checkedQuery', () => {
  it('returns the query and refuses a blank one or a non-positive deadline', () => {
    assert.equal(checkedQuery({ query: ' a ' }), ' a ');
    assert.throws(() => checkedQuery({ query: ' \n' }), isInvalid(/the query is empty/));
    assert.throws(() => checkedQuery({} as SearchRequest), isInvalid(/the query is empty/));
    assert.throws(() => checkedQuery({ query: 'a', deadlineMs: 0 }), isInvalid(/deadlineMs/));
  });
});
