import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '@codesift/query';
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

test('boundaries see whole code points, and a rejected match does not hide a later one', () => {
  const d40 = code('D40');
  assert.ok(has(d40, 'XD40 D40'), 'the second mention counts');
  assert.ok(has(d40, 'D401 or D40'));
  assert.ok(has(code('a.a'), 'xa.a.a'), 'the match that passes overlaps the one that did not');
  // U+1D49C MATHEMATICAL SCRIPT CAPITAL A is a letter written as a surrogate pair.
  assert.ok(!has(d40, '\u{1D49C}D40'));
  assert.ok(!has(d40, 'D40\u{1D49C}'));
  assert.ok(has(d40, '\u{1F600}D40\u{1F600}'), 'an emoji is no letter');
  assert.ok(
    has(code('.env'), 'load(x.env)'),
    'no boundary is asked where the anchor starts with a dot',
  );
});

test('matching agrees with the lookaround regex it replaced', () => {
  // The reference: boundaries written into the regex as \p{L} lookarounds.
  const reference = (a: PlannedAnchor, content: string) => {
    const word = /[\p{L}\p{N}_$]/u;
    const body = a.text
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s+');
    const before = word.test(a.text.charAt(0)) ? '(?<![\\p{L}\\p{N}_$])' : '';
    const after = word.test(a.text.charAt(a.text.length - 1)) ? '(?![\\p{L}\\p{N}_$])' : '';
    return new RegExp(`${before}${body}${after}`, a.caseSensitive ? 'u' : 'iu').test(content);
  };
  const anchors: PlannedAnchor[] = [
    code('ab'),
    code('a b'),
    code('$a'),
    code('a.'),
    code('a.a'),
    { text: 'Ab b', kind: 'phrase', caseSensitive: false, weight: 1 },
  ];
  const alphabet = ['a', 'b', 'A', ' ', '\n', '.', '$', '_', '1', 'é', '\u{1D49C}', '-'];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let i = 0; i < 3000; i++) {
    let content = '';
    const n = next() % 9;
    for (let k = 0; k < n; k++) content += alphabet[next() % alphabet.length];
    for (const a of anchors) {
      assert.equal(
        has(a, content),
        reference(a, content),
        `${JSON.stringify(a.text)} in ${JSON.stringify(content)}`,
      );
    }
  }
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
