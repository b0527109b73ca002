import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SYNONYMS, parseQuery } from '@codesift/query';
import { DEFAULT_PLANNER_CONFIG, planQuery } from './plan-query.js';
import { rescore } from './rescore.js';
import type { PlanOptions } from './types.js';

const CONFIG = { ...DEFAULT_PLANNER_CONFIG, synonyms: DEFAULT_SYNONYMS };
const planFor = (q: string, o: PlanOptions = {}) => planQuery(parseQuery(q), o, CONFIG);

test('"D40" beats "D41" and "Area D" by the anchor boost (hand-computed, linear 0.7/0.3)', () => {
  // IndexFoundry's example: D40 keyword 1.0 / vector 0.7 -> 0.79; D41 0 / 0.85 -> 0.595;
  // Area D 0.5 / 0.6 -> 0.57. Make D41 out-fuse D40 to show the boost decides: D40 0.55, D41 0.9.
  // All candidates are prose docs; doc demotion (a uniform x0.7 here) is tested below.
  const plan = planFor('Tell me about D40', { docDemotion: false });
  const candidates = [
    { id: 'd41', path: 'docs/d41.md', fused: 0.9 },
    { id: 'aread', path: 'docs/area-d.md', fused: 0.57 },
    { id: 'd40', path: 'docs/d40.md', fused: 0.55 },
    { id: 'd401', path: 'docs/d401.md', fused: 0.5 },
  ];
  const contents = new Map([
    ['d41', 'Region D41 floods.'],
    ['aread', 'Area D is around the pump.'],
    ['d40', 'The pump sits in region D40.'],
    ['d401', 'Form D401 lists pumps.'],
  ]);
  const out = rescore({ plan, candidates, definitions: new Set(), contents });
  assert.deepEqual(
    out.map((r) => [r.id, Math.round(r.score * 1000) / 1000, r.anchorBoost]),
    [
      ['d40', 1.05, 0.5],
      ['d41', 0.9, 0],
      ['aread', 0.57, 0],
      ['d401', 0.5, 0],
    ],
  );
  assert.deepEqual(out[0]!.anchorsMatched, ['D40']);
});

test('score = (fused + definition + anchor) x focus; ties keep the boosted first', () => {
  const plan = planFor('how does addEdge work'); // implementation focus, x0.5 for tests
  const candidates = [
    { id: 'test', path: 'src/graph.test.ts', fused: 1 },
    { id: 'def', path: 'src/graph.ts', fused: 0.4 },
    { id: 'doc', path: 'docs/graph.md', fused: 0.2 },
  ];
  const contents = new Map([
    ['test', 'g.addEdge(a, b); g.addEdge(b, c);'],
    ['def', 'addEdge(from: string, to: string): void {'],
    ['doc', 'edges'],
  ]);
  const out = rescore({ plan, candidates, definitions: new Set(['def']), contents });
  // def: (0.4 + 1 + 0.5) * 1 = 1.9; test: (1 + 0 + 0.5) * 0.5 = 0.75; doc: 0.2 x 0.5 (prose docs).
  assert.deepEqual(
    out.map((r) => [r.id, r.score, r.definitionBoost, r.anchorBoost, r.focusMultiplier]),
    [
      ['def', 1.9, 1, 0.5, 1],
      ['test', 0.75, 0, 0.5, 0.5],
      ['doc', 0.2 * 0.5, 0, 0, 0.5],
    ],
  );
  // Asking for docs leaves prose alone.
  const docs = rescore({
    plan: planFor('where is addEdge documented'),
    candidates,
    definitions: new Set(),
    contents: new Map(),
  });
  assert.equal(docs.find((r) => r.id === 'doc')!.focusMultiplier, 1);
  const tie = rescore({
    plan: planFor('addEdge', { focusScoring: false }),
    candidates: [
      { id: 'a', path: 'a.ts', fused: 0.5 },
      { id: 'b', path: 'b.ts', fused: 0 },
    ],
    definitions: new Set(),
    contents: new Map([['b', 'addEdge']]),
  });
  assert.deepEqual(
    tie.map((r) => r.id),
    ['b', 'a'],
  );
});

test('with everything off the order and scores are fusion alone', () => {
  const plan = planFor('how does addEdge work', { anchors: false, focusScoring: false });
  const candidates = [
    { id: 'a', path: 'src/a.test.ts', fused: 0.9 },
    { id: 'b', path: 'src/b.ts', fused: 0.3 },
  ];
  const out = rescore({
    plan,
    candidates,
    definitions: new Set(),
    contents: new Map([['b', 'addEdge']]),
  });
  assert.deepEqual(
    out.map((r) => [r.id, r.score]),
    [
      ['a', 0.9],
      ['b', 0.3],
    ],
  );
});
