import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { Focus, FusionMethod, SearchRequestSchema } from '@codesift/proto';
import type { QueryPlan, SearchResponse } from '@codesift/search';
import { searchRequestFromProto, searchResponseToProto } from './search-mapping.js';

test('maps adaptive fusion, focus and the ablation switches', () => {
  const req = searchRequestFromProto(
    create(SearchRequestSchema, {
      query: 'how is addEdge tested',
      fusion: FusionMethod.ADAPTIVE,
      focus: Focus.TESTS,
      noExpansion: true,
      noAnchor: true,
      noFocus: true,
    }),
  );
  assert.equal(req.fusion, 'adaptive');
  assert.equal(req.focus, 'tests');
  assert.equal(req.expansion, false);
  assert.equal(req.anchors, false);
  assert.equal(req.focusScoring, false);
  const plain = searchRequestFromProto(create(SearchRequestSchema, { query: 'x' }));
  assert.equal(plain.focus, undefined, 'unset focus: the planner infers it');
  assert.equal(plain.expansion, undefined);
  assert.equal(plain.anchors, undefined);
  assert.equal(plain.focusScoring, undefined);
  for (const [focus, want] of [
    [Focus.IMPLEMENTATION, 'implementation'],
    [Focus.ALL, 'all'],
  ] as const) {
    assert.equal(
      searchRequestFromProto(create(SearchRequestSchema, { query: 'x', focus })).focus,
      want,
    );
  }
  assert.throws(() =>
    searchRequestFromProto(create(SearchRequestSchema, { query: 'x', focus: 9 as Focus })),
  );
});

test('fills plan_json and the anchor and focus score parts when explaining', () => {
  const plan = {
    version: 1,
    reasons: ['fusion: linear, 0.7 vector / 0.3 keyword'],
  } as unknown as QueryPlan;
  const res: SearchResponse = {
    query: 'D40',
    fusion: 'linear',
    timings: { parse: 0.1, plan: 0.05 },
    degraded: [],
    totalChunks: 3,
    plan,
    results: [
      {
        chunkId: 'c1',
        path: 'docs/d40.md',
        startLine: 1,
        endLine: 3,
        symbol: null,
        kind: 'section',
        language: 'markdown',
        score: 0.75,
        snippet: 'Region D40',
        snippetStartLine: 1,
        explain: {
          keyword: 2,
          keywordRank: 1,
          vector: null,
          vectorRank: null,
          fused: 0.75,
          base: 1,
          anchorBoost: 0.5,
          focusMultiplier: 0.5,
        },
      },
    ],
  };
  const out = searchResponseToProto(res, { explain: true });
  assert.deepEqual(JSON.parse(out.planJson), plan);
  assert.equal(out.results[0]!.explain!.anchorBoost, 0.5);
  assert.equal(out.results[0]!.explain!.focusMultiplier, 0.5);
  assert.deepEqual(
    out.timings.map((t) => t.stage),
    ['parse', 'plan'],
  );
  const quiet = searchResponseToProto(res, { explain: false });
  assert.equal(quiet.planJson, '{}');
  assert.equal(quiet.results[0]!.explain, undefined);
});
