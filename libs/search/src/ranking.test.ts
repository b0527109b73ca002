import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SYNONYMS, parseQuery } from '@codesift/query';
import type { KeywordHit, VectorHit } from '@codesift/stores';
import { DEFAULT_PLANNER_CONFIG, planQuery } from './planning/plan-query.js';
import type { PlanOptions } from './planning/types.js';
import { type BoostEvidence, type Fused, fuseSides, rank } from './ranking.js';
import { UNIT_CANDIDATE_FACTOR } from './units.js';

const CONFIG = { ...DEFAULT_PLANNER_CONFIG, synonyms: DEFAULT_SYNONYMS };
const planFor = (q: string, o: PlanOptions = {}) =>
  planQuery(parseQuery(q), { vectorAvailable: true, ...o }, CONFIG);

function kw(id: string, path: string, score: number, language = 'typescript'): KeywordHit {
  return { id, path, startLine: 1, endLine: 10, symbol: null, kind: 'function', language, score };
}
const vec = (id: string, path: string, score: number): VectorHit => ({ id, path, score });
const NO_EVIDENCE: BoostEvidence = { definitions: new Set(), contents: new Map() };
const round = (n: number) => Math.round(n * 1000) / 1000;

describe('fuseSides', () => {
  it('gives each candidate the path a side reported and the language the keyword side knows', () => {
    const plan = planFor('graph edges');
    const fused = fuseSides(plan, {
      keyword: [kw('a', 'src/a.ts', 4), kw('b', 'src/b.py', 2, 'python')],
      vector: [vec('c', 'src/c.go', 0.9), vec('a', 'src/a.ts', 0.5)],
    });
    const byId = new Map(fused.candidates.map((c) => [c.id, c]));
    assert.deepEqual(byId.get('c'), { id: 'c', path: 'src/c.go', fused: byId.get('c')!.fused });
    assert.equal(byId.get('b')!.language, 'python');
    assert.equal(byId.get('a')!.language, 'typescript');
    assert.deepEqual([...fused.keywordById.keys()], ['a', 'b']);
    // Candidates follow the fused order, one per hit.
    assert.deepEqual(
      fused.candidates.map((c) => c.id),
      fused.hits.map((h) => h.id),
    );
  });

  it("uses the plan's combiner: a dropped vector side leaves the keyword side the whole weight", () => {
    const plan = planFor('graph edges');
    assert.equal(plan.fusion.combiner, 'linear');
    const fused = fuseSides(plan, {
      keyword: [kw('a', 'a.ts', 4), kw('b', 'b.ts', 2)],
      vector: null,
    });
    assert.deepEqual(
      fused.hits.map((h) => [h.id, h.fused]),
      [
        ['a', 1],
        ['b', 0],
      ],
    );
    const rrf = fuseSides(planFor('graph edges', { fusion: 'rrf' }), {
      keyword: [kw('a', 'a.ts', 4)],
      vector: [vec('a', 'a.ts', 0.3)],
    });
    assert.equal(round(rrf.hits[0]!.fused), round(2 / 61));
  });
});

describe('fuseSides by vector contrast', () => {
  // Keyword: a, then b at half a's score. Vector: b first, a last of 11 (normalised to 0).
  const keyword = [kw('a', 'a.ts', 10), kw('b', 'b.ts', 5), kw('z', 'z.ts', 0)];
  const vectorList = (step: number) =>
    ['b', ...Array.from({ length: 9 }, (_, i) => `x${i}`), 'a'].map((id, i) =>
      vec(id, `${id}.ts`, 0.6 - i * step),
    );
  const order = (fused: Fused) => fused.hits.slice(0, 2).map((h) => h.id);
  const plan = planFor('graph edges', { vectorContrast: true });

  it('a list flatter than noise keeps the least share of its weight: the keyword order stands', () => {
    assert.equal(plan.fusion.contrast, true);
    // Contrast 0.009 against the noise's 0.04: share 0.75 (the least), vector weight 0.3.
    const flat = fuseSides(plan, { keyword, vector: vectorList(0.001) }, 0.04);
    assert.deepEqual(order(flat), ['a', 'b']);
    assert.equal(round(flat.hits.find((h) => h.id === 'b')!.fused), round(0.7 * 0.5 + 0.3));
  });

  it('a peaked list, an unmeasured noise or the switch off keep the whole weight', () => {
    // Contrast 0.09, over twice the noise's: vector weight 0.4, b first (0.6 * 0.5 + 0.4 > 0.6).
    assert.deepEqual(order(fuseSides(plan, { keyword, vector: vectorList(0.01) }, 0.04)), [
      'b',
      'a',
    ]);
    assert.deepEqual(order(fuseSides(plan, { keyword, vector: vectorList(0.001) }, null)), [
      'b',
      'a',
    ]);
    // Off by default (DEFAULT_PLANNER_CONFIG).
    const off = planFor('graph edges');
    assert.deepEqual(order(fuseSides(off, { keyword, vector: vectorList(0.001) }, 0.04)), [
      'b',
      'a',
    ]);
  });
});

describe('rank', () => {
  const sides = {
    // Keyword-only linear fusion normalises these to 1, 0.889, 0.667 and 0.
    keyword: [
      kw('use', 'src/use.ts', 9),
      kw('spec', 'src/graph.test.ts', 8),
      kw('def', 'src/graph.ts', 6),
      kw('low', 'src/low.ts', 0),
    ],
    vector: null,
  };

  it('lifts the chunk holding a definition by one fusion scale, and keeps the score parts', () => {
    const plan = planFor('where is addEdge defined');
    const ranked = rank(plan, fuseSides(plan, sides), {
      definitions: new Set(['def']),
      contents: new Map(),
    });
    assert.equal(ranked[0]!.id, 'def');
    assert.equal(ranked[0]!.definitionBoost, plan.definitions.boost);
    // Fusion's parts travel with the boosts, for explain.
    assert.equal(ranked[0]!.keywordRank, 3);
    assert.equal(ranked[0]!.vector, null);
  });

  it('multiplies results out of focus and keeps enough chunks for the units of the limit', () => {
    const plan = planFor('how does the graph add edges', { limit: 1 });
    assert.equal(plan.focus.focus, 'implementation');
    const ranked = rank(plan, fuseSides(plan, sides), NO_EVIDENCE);
    // The test file's 0.889 x 0.5 falls below the implementation's 0.667.
    assert.equal(ranked.length, UNIT_CANDIDATE_FACTOR);
    assert.deepEqual(
      ranked.slice(0, 2).map((r) => r.id),
      ['use', 'def'],
    );
    const all = rank({ ...plan, limit: 10 }, fuseSides(plan, sides), NO_EVIDENCE);
    const spec = all.find((r) => r.id === 'spec')!;
    assert.equal(spec.focusMultiplier, plan.focus.outOfFocusMultiplier);
    assert.equal(round(spec.score), round((8 / 9) * plan.focus.outOfFocusMultiplier));
  });

  it('matches anchors only in the content evidence holds', () => {
    const plan = planFor('ERR_GRAPH_CYCLE');
    const fused = fuseSides(plan, sides);
    const without = rank(plan, fused, NO_EVIDENCE);
    assert.ok(without.every((r) => r.anchorBoost === 0));
    const withContent = rank(plan, fused, {
      definitions: new Set(),
      contents: new Map([['def', 'throw new Error("ERR_GRAPH_CYCLE")']]),
    });
    assert.equal(withContent[0]!.id, 'def');
    assert.deepEqual(withContent[0]!.anchorsMatched, ['ERR_GRAPH_CYCLE']);
  });

  it('collapses to files: best chunk per file, or decayed support without the boosts', () => {
    const files = {
      keyword: [
        kw('a1', 'src/a.ts', 10),
        kw('b1', 'src/b.ts', 9),
        kw('b2', 'src/b.ts', 8),
        kw('b3', 'src/b.ts', 8),
        kw('a2', 'src/a.ts', 0),
      ],
      vector: null,
    };
    const best = planFor('graph edges', { collapseFiles: true, fileScore: 'best' });
    assert.deepEqual(
      rank(best, fuseSides(best, files), NO_EVIDENCE).map((r) => r.id),
      ['a1', 'b1'],
    );
    const decayed = planFor('graph edges', { collapseFiles: true, fileScore: 'decayed' });
    const ranked = rank(decayed, fuseSides(decayed, files), NO_EVIDENCE);
    // b.ts is touched in three places: 0.9 + 0.5 * 0.8 + 0.25 * 0.8 beats a.ts's 1 + 0.5 * 0.
    assert.deepEqual(
      ranked.map((r) => [r.id, round(r.score)]),
      [
        ['b1', 1.5],
        ['a1', 1],
      ],
    );
    // A definition boost on b2 counts once, in b2's own score, not in its file's support.
    const boosted = rank(decayed, fuseSides(decayed, files), {
      definitions: new Set(['b2']),
      contents: new Map(),
    });
    // b2: 0.8 + 1 (boost), then b1 and b3 add 0.5 * 0.9 + 0.25 * 0.8 without boosts.
    assert.deepEqual(
      boosted.map((r) => [r.id, round(r.score)]),
      [
        ['b2', 2.45],
        ['a1', 1],
      ],
    );
  });
});
