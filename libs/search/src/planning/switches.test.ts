import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allSwitches, PLANNER_SWITCHES, resolveSwitches } from './switches.js';

describe('planner switches', () => {
  it('lists each switch once', () => {
    assert.equal(new Set(PLANNER_SWITCHES).size, PLANNER_SWITCHES.length);
    assert.deepEqual(Object.keys(allSwitches(true)), [...PLANNER_SWITCHES]);
    assert.ok(Object.values(allSwitches(false)).every((v) => v === false));
  });

  it('a switch the options set wins over the config; an unset one falls back', () => {
    const config = allSwitches(true);
    const resolved = resolveSwitches({ anchors: false, expansion: undefined }, config);
    assert.deepEqual(resolved, { ...config, anchors: false });
  });
});
