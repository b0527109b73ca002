import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '@codesift/analysis';
import { compileAnchor, MAX_ANCHORS, matchAnchors, planAnchors } from './anchors.js';
import type { PlannedAnchor } from './types.js';

const code = (text: string): PlannedAnchor => ({
  text,
  kind: 'code',
  caseSensitive: true,
  weight: 1,
});
const has = (a: PlannedAnchor, content: string, path = 'x.md') =>
  compileAnchor(a).test(content, path);

test('identifiers and codes match case-sensitively at word boundaries', () => {
  const d40 = code('D40');
  for (const yes of ['D40', 'Region D40.', '(D40)', 'rooms D40,D41', 'D40-a', 'é D40']) {
    assert.ok(has(d40, yes), yes);
  }
  for (const no of ['D401', 'XD40', 'd40', 'D4 0', 'D_40', 'D40_x', 'D41', 'Area D', '$D40']) {
    assert.ok(!has(d40, no), no);
  }
  const ident = { ...code('addEdge'), kind: 'identifier' as const };
  assert.ok(has(ident, 'g.addEdge(a, b)'));
  assert.ok(!has(ident, 'addEdges'));
  assert.ok(!has(ident, 'addedge'));
});

test('a citation matches across any whitespace', () => {
  const cfr = code('30 CFR 75.1725');
  assert.ok(has(cfr, 'under 30 CFR 75.1725 mobile'));
  assert.ok(has(cfr, 'under 30\nCFR  75.1725.'));
  assert.ok(!has(cfr, '30 CFR 75.17251'));
  assert.ok(!has(cfr, '130 CFR 75.1725'));
  assert.ok(!has(cfr, '30 CFR 75x1725'), 'the dot is literal');
});

test('phrases ignore case; paths also match the result path', () => {
  const phrase: PlannedAnchor = {
    text: 'pump station',
    kind: 'phrase',
    caseSensitive: false,
    weight: 1,
  };
  assert.ok(has(phrase, 'The Pump  Station floods'));
  assert.ok(!has(phrase, 'pumpstation'));
  const p: PlannedAnchor = { text: 'graph/load.ts', kind: 'path', caseSensitive: true, weight: 1 };
  assert.ok(has(p, 'no mention', 'src/graph/load.ts'));
  assert.ok(!has(p, 'no mention', 'src/subgraph/load.ts'));
  assert.ok(has(p, 'see src/graph/load.ts:33', 'other.ts'));
});

test('coverage is the matched share of the anchor weights', () => {
  const anchors: PlannedAnchor[] = [code('D40'), { ...code('Graph.addEdge'), weight: 0.5 }];
  const matchers = anchors.map(compileAnchor);
  assert.deepEqual(matchAnchors(matchers, 'D40 only', 'a.md'), {
    matched: ['D40'],
    coverage: 1 / 1.5,
  });
  assert.deepEqual(matchAnchors(matchers, 'Graph.addEdge and D40', 'a.md').coverage, 1);
  assert.deepEqual(matchAnchors(matchers, 'nothing', 'a.md'), { matched: [], coverage: 0 });
  assert.deepEqual(matchAnchors([], 'D40', 'a.md'), { matched: [], coverage: 0 });
});

test('anchors come from the parse: phrases, identifiers, codes, trace names at half weight', () => {
  assert.deepEqual(planAnchors(parseQuery('the pump')), []);
  const trace = planAnchors(
    parseQuery(
      'Traceback (most recent call last):\n  File "app/io.py", line 3, in load_rows\nValueError: bad row',
    ),
  );
  assert.ok(trace.length > 0);
  assert.ok(trace.every((a) => a.weight === 0.5 && a.caseSensitive));
  assert.ok(trace.some((a) => a.kind === 'path' && a.text === 'app/io.py'));
  const many = Array.from({ length: 40 }, (_, i) => `Name${i}Thing`).join(' ');
  assert.equal(planAnchors(parseQuery(many)).length, MAX_ANCHORS);
});

test('a short one-line query without anchors of its own is anchored whole', () => {
  const msg = planAnchors(parseQuery('the session expired before the upload finished'));
  assert.deepEqual(msg, [
    {
      text: 'the session expired before the upload finished',
      kind: 'phrase',
      caseSensitive: false,
      weight: 1,
    },
  ]);
  const m = compileAnchor(msg[0]!);
  assert.equal(
    m.test("throw new Error('The session expired before the\n    upload finished');", 'a.ts'),
    true,
  );
  assert.equal(m.test('the session expired, before the upload finished', 'a.ts'), false);
  // Its own anchors win: the identifier is the anchor, not the sentence.
  assert.deepEqual(
    planAnchors(parseQuery('where is OllamaEmbedder created')).map((a) => a.text),
    ['OllamaEmbedder'],
  );
  // Too short, too long, several lines, or filters only: no whole-query anchor.
  assert.deepEqual(planAnchors(parseQuery('pump speed')), []);
  assert.deepEqual(
    planAnchors(
      parseQuery('one two three four five six seven eight nine ten eleven twelve thirteen'),
    ),
    [],
  );
  assert.deepEqual(planAnchors(parseQuery('first line here\nsecond line here')), []);
  assert.deepEqual(
    planAnchors(parseQuery('lang:go pump speed')).map((a) => a.text),
    [],
  );
});
