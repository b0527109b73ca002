import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { Focus, FusionMethod, SearchRequestSchema, SearchResponseSchema } from '@codesift/proto';
import type { QueryPlan, SearchResponse } from '@codesift/search';
import {
  searchRequestFromProto,
  searchRequestToProto,
  searchResponseFromProto,
  searchResponseToProto,
  snippetFromProto,
  snippetToProto,
} from './search.js';

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
          boost: 1,
          anchorBoost: 0.5,
          anchors: ['D40'],
          focusMultiplier: 0.5,
        },
      },
    ],
  };
  const out = searchResponseToProto(res, { explain: true });
  // Every part the local engine explains comes back as it was.
  assert.deepEqual(
    searchResponseFromProto({ query: 'D40', explain: true }, out).results[0]!.explain,
    res.results[0]!.explain,
  );
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

test('responses from servers without snippet_start_line and fusion fall back sensibly', () => {
  const res = create(SearchResponseSchema, {
    results: [{ path: 'a.ts', range: { startLine: 4, endLine: 9 }, snippet: 'x', symbol: '' }],
    planJson: JSON.stringify({ fusion: { method: 'rrf', combiner: 'rrf' } }),
    totalChunks: 7n,
  });
  const out = searchResponseFromProto({ query: 'q' }, res);
  assert.equal(out.results[0]!.snippetStartLine, 4, 'the chunk start stands in');
  assert.equal(out.results[0]!.symbol, null);
  assert.equal(out.fusion, 'rrf', 'taken from the plan');
  assert.equal(out.plan, undefined, 'the plan only when explaining');
  assert.equal(out.totalChunks, 7);
  const withFusion = create(SearchResponseSchema, { fusion: FusionMethod.LINEAR, planJson: '{}' });
  assert.equal(searchResponseFromProto({ query: 'q' }, withFusion).fusion, 'linear');
});

test('a request round-trips through the client and server mappings', () => {
  const request = {
    query: 'where are edges added',
    limit: 7,
    fusion: 'adaptive' as const,
    focus: 'implementation' as const,
    collapseFiles: true,
    explain: true,
    expansion: false,
    filter: { languages: ['go'], include: ['src/**'], exclude: ['vendor/**'] },
  };
  const back = searchRequestFromProto(create(SearchRequestSchema, searchRequestToProto(request)));
  // The server asks the engine for the plan only when it will send it (explain).
  assert.deepEqual(back, { ...request, includePlan: true });
  const plain = searchRequestFromProto(
    create(SearchRequestSchema, searchRequestToProto({ query: 'x' })),
  );
  assert.deepEqual(plain, {
    query: 'x',
    limit: 10,
    collapseFiles: false,
    explain: false,
    includePlan: false,
  });
});

test('the variants count travels as the optional uint: unset is the server default, 0 off', () => {
  for (const variants of [0, 1, 3]) {
    const proto = create(SearchRequestSchema, searchRequestToProto({ query: 'x', variants }));
    assert.equal(proto.variants, variants);
    assert.equal(searchRequestFromProto(proto).variants, variants);
  }
  const unset = create(SearchRequestSchema, searchRequestToProto({ query: 'x' }));
  assert.equal(unset.variants, undefined);
  assert.equal('variants' in searchRequestFromProto(unset), false);
});

test('the rewrite mode travels as the optional bool: unset auto, true on, false off', () => {
  for (const mode of ['on', 'off'] as const) {
    const proto = create(SearchRequestSchema, searchRequestToProto({ query: 'x', rewrite: mode }));
    assert.equal(proto.rewrite, mode === 'on');
    assert.equal(searchRequestFromProto(proto).rewrite, mode);
  }
  const auto = create(SearchRequestSchema, searchRequestToProto({ query: 'x', rewrite: 'auto' }));
  assert.equal(auto.rewrite, undefined);
  assert.equal(searchRequestFromProto(auto).rewrite, undefined);
});

test('stale travels both ways for results and snippets, absent when fresh', () => {
  const result = {
    chunkId: 'c1',
    path: 'a.ts',
    startLine: 1,
    endLine: 2,
    symbol: null,
    kind: 'window',
    language: 'typescript',
    score: 1,
    snippet: 'x',
    snippetStartLine: 1,
  };
  const res: SearchResponse = {
    query: 'q',
    fusion: 'linear',
    timings: {},
    degraded: [],
    totalChunks: 2,
    results: [
      { ...result, stale: true },
      { ...result, chunkId: 'c2', path: 'b.ts' },
    ],
  };
  const back = searchResponseFromProto(
    { query: 'q' },
    searchResponseToProto(res, { explain: false }),
  );
  assert.equal(back.results[0]!.stale, true);
  assert.equal('stale' in back.results[1]!, false);
  const snippet = { path: 'a.ts', startLine: 1, endLine: 1, language: 'typescript', text: 'x' };
  assert.deepEqual(snippetFromProto(snippetToProto({ ...snippet, stale: true })), {
    ...snippet,
    stale: true,
  });
  assert.deepEqual(snippetFromProto(snippetToProto(snippet)), snippet);
});
