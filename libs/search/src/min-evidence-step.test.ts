import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SYNONYMS } from '@codesift/query';
import type { FusedHit } from './fusion.js';
import { minEvidenceStep, startEvidenceCheck } from './min-evidence-step.js';
import { DEFAULT_PLANNER_CONFIG, planText } from './planning/plan-query.js';
import type { QueryPlan } from './planning/types.js';
import type { Fused } from './ranking.js';
import type { SearchIndex } from './search-index.js';

function planOf(query: string, minEvidence = true): QueryPlan {
  return planText(
    query,
    { minEvidence, vectorAvailable: true },
    { ...DEFAULT_PLANNER_CONFIG, synonyms: DEFAULT_SYNONYMS },
  ).plan;
}

function fusedOf(hits: Partial<FusedHit>[], keywordIds: string[] = []): Fused {
  const full = hits.map(
    (h, i): FusedHit => ({
      id: `c${i}`,
      fused: 1 - i / 10,
      keyword: null,
      keywordRank: null,
      vector: null,
      vectorRank: null,
      ...h,
    }),
  );
  return {
    hits: full,
    candidates: full.map((h) => ({ id: h.id, path: `${h.id}.ts`, fused: h.fused })),
    keywordById: new Map(
      keywordIds.map((id) => [
        id,
        {
          id,
          path: `${id}.ts`,
          startLine: 1,
          endLine: 1,
          symbol: null,
          kind: 'block',
          language: 'typescript',
          score: 1,
        },
      ]),
    ),
  } as Fused;
}

/** A keyword store whose term counts say which terms exist; it records what it was asked. */
function countingStore(indexed: string[]) {
  const asked: string[][] = [];
  const store: SearchIndex['keyword'] = {
    search: async () => [],
    cooccurrence: async (q) => {
      asked.push(q.words);
      return {
        chunks: 100,
        df: Object.fromEntries(q.words.map((w) => [w, indexed.includes(w) ? 3 : 0])),
        joint: {},
      };
    },
  };
  return { store, asked };
}

describe('minimum evidence step', () => {
  it('asks the store nothing when the keyword side searched only own terms', async () => {
    const { store, asked } = countingStore([]);
    const plan = planOf('frobnicator');
    assert.equal(startEvidenceCheck(plan, store), null);
    const fused = fusedOf([{ id: 'c0', keyword: 3 }], ['c0']);
    const out = await minEvidenceStep(plan, fused, {
      ownIndexed: null,
      keywordAnswered: true,
      noiseFloor: null,
    });
    assert.equal(out.fused, fused);
    assert.equal(out.plan.evidence.outcome?.kind, 'own-terms');
    assert.deepEqual(asked, []);
  });

  it('drops hits from identifier parts alone, and keeps them once the identifier is indexed', async () => {
    const fused = fusedOf([{ keyword: 3 }], ['c0']);
    const plan = planOf('FrobnicateWidget');
    const absent = countingStore(['frobnicate', 'widget']);
    const dropped = await minEvidenceStep(plan, fused, {
      ownIndexed: startEvidenceCheck(plan, absent.store),
      keywordAnswered: true,
      noiseFloor: null,
    });
    assert.deepEqual(dropped.fused.hits, []);
    assert.deepEqual(dropped.plan.evidence.outcome, {
      kind: 'none',
      similarity: null,
      floor: null,
    });
    assert.deepEqual(absent.asked, [
      ['frobnicatewidget', 'frobnicate_widget', 'frobnicate-widget'],
    ]);

    const present = countingStore(['frobnicate_widget']);
    const kept = await minEvidenceStep(plan, fused, {
      ownIndexed: startEvidenceCheck(plan, present.store),
      keywordAnswered: true,
      noiseFloor: null,
    });
    assert.equal(kept.fused, fused);
  });

  it('the segments of a qualified name are own terms, the sub-words of one identifier are not', () => {
    assert.deepEqual(planOf('Rack::Reader').evidence.ownTerms, ['rack::reader', 'rack', 'reader']);
    assert.deepEqual(planOf('HTTPAdapter').evidence.ownTerms, [
      'httpadapter',
      'http_adapter',
      'http-adapter',
    ]);
  });

  it('vector hits count only above the noise floor, which is measured only when needed', async () => {
    const plan = planOf('xyzzyplugh frobnicator');
    let measured = 0;
    const floor = (value: number) => async () => {
      measured++;
      return value;
    };
    const fused = fusedOf([{ vector: 0.42 }, { vector: 0.47 }]);
    const judging = (noiseFloor: () => Promise<number>, indexed = false) => ({
      ownIndexed: Promise.resolve(indexed),
      keywordAnswered: true,
      noiseFloor,
    });
    const below = await minEvidenceStep(plan, fused, judging(floor(0.49)));
    assert.deepEqual(below.fused.hits, []);
    assert.deepEqual(below.plan.evidence.outcome, { kind: 'none', similarity: 0.47, floor: 0.49 });
    const above = await minEvidenceStep(plan, fused, judging(floor(0.45)));
    assert.equal(above.fused, fused);
    assert.equal(above.plan.evidence.outcome?.kind, 'vector');
    assert.match(
      above.plan.reasons.at(-1)!,
      /similarity 0\.47 above the index's noise floor 0\.45/,
    );
    assert.equal(measured, 2);
    await minEvidenceStep(plan, fused, judging(floor(0.9), true));
    assert.equal(measured, 2, 'an own term in the index needs no floor');
  });

  it('is not applied over a store that counts no terms, and the plan says so', async () => {
    let searches = 0;
    const store: SearchIndex['keyword'] = {
      search: async () => {
        searches++;
        return [];
      },
    };
    const plan = planOf('FrobnicateWidget');
    const fused = fusedOf([{ keyword: 2 }], ['c0']);
    const out = await minEvidenceStep(plan, fused, {
      ownIndexed: startEvidenceCheck(plan, store),
      keywordAnswered: true,
      noiseFloor: null,
    });
    assert.equal(out.fused, fused);
    assert.equal(out.plan.evidence.outcome, null);
    assert.match(
      out.plan.reasons.at(-1)!,
      /^evidence: not judged, the keyword store counts no terms/,
    );
    assert.equal(searches, 0, 'no extra remote call');
  });

  it('keeps the results when it cannot judge: a failed keyword side or store', async () => {
    const fused = fusedOf([{ vector: 0.3 }]);
    const plan = planOf('frobnicator');
    const silent = await minEvidenceStep(plan, fused, {
      ownIndexed: null,
      keywordAnswered: false,
      noiseFloor: null,
    });
    assert.equal(silent.fused, fused);
    assert.match(
      silent.plan.reasons.at(-1)!,
      /^evidence: not judged, the keyword side did not answer/,
    );
    const failed = Promise.reject(new Error('store gone'));
    failed.catch(() => {});
    const broken = await minEvidenceStep(planOf('FrobnicateWidget'), fused, {
      ownIndexed: failed,
      keywordAnswered: true,
      noiseFloor: null,
    });
    assert.equal(broken.fused, fused);
    assert.match(broken.plan.reasons.at(-1)!, /store gone/);
  });

  it('does nothing when switched off or when there is nothing to judge', async () => {
    const { store, asked } = countingStore([]);
    const offPlan = planOf('FrobnicateWidget', false);
    assert.equal(startEvidenceCheck(offPlan, store), null);
    const fused = fusedOf([{ keyword: 3 }], ['c0']);
    const off = await minEvidenceStep(offPlan, fused, {
      ownIndexed: null,
      keywordAnswered: true,
      noiseFloor: null,
    });
    assert.equal(off.fused, fused);
    assert.equal(off.plan.evidence.outcome, null);
    const empty = fusedOf([]);
    const none = await minEvidenceStep(planOf('FrobnicateWidget'), empty, {
      ownIndexed: Promise.resolve(false),
      keywordAnswered: true,
      noiseFloor: null,
    });
    assert.equal(none.fused, empty);
    assert.deepEqual(asked, []);
  });
});
