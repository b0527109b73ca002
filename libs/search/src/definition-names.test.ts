import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SYNONYMS, parseQuery } from '@codesift/query';
import {
  isTestSymbol,
  nameShares,
  orderByNames,
  orderWithinFiles,
  ownName,
} from './definition-names.js';
import { DEFAULT_PLANNER_CONFIG, planQuery } from './planning/plan-query.js';
import { type BoostEvidence, fuseSides, rank } from './ranking.js';

describe('definition names', () => {
  it('reads a definition’s own name and recognizes tests by their symbol path', () => {
    assert.equal(ownName('Request.parse'), 'parse');
    assert.equal(ownName('parser::skip_empty_lines'), 'skip_empty_lines');
    assert.equal(ownName('README > Usage > Printing'), 'Printing');
    assert.ok(isTestSymbol('tests.test_header_with_nul'));
    assert.ok(isTestSymbol('test_minify'));
    assert.ok(isTestSymbol('TestWalkNested'));
    assert.ok(isTestSymbol('FooTest.testParse'));
    assert.ok(!isTestSymbol('Router.walk'));
    assert.ok(!isTestSymbol('attestation'));
    assert.ok(!isTestSymbol('testimony'));
  });

  const defs = new Map([
    ['skip', { symbol: 'skip_empty_lines', kind: 'function' }],
    ['long', { symbol: 'ParserConfig.allow_spaces_in_request_line_delimiters', kind: 'method' }],
    ['test', { symbol: 'tests.test_empty_lines_before_request_line', kind: 'function' }],
    ['klass', { symbol: 'EmptyLines', kind: 'class' }],
    ['anon', { symbol: null, kind: 'window' }],
    ['other', { symbol: 'parse_headers', kind: 'function' }],
  ]);
  const items = [...defs.keys()].map((id) => ({ id }));

  it('weighs the words a callable’s name holds by rarity and by how much of the name they are', () => {
    const s = nameShares(items, (id) => defs.get(id), ['empty', 'lines', 'request', 'line']);
    // `skip_empty_lines`: empty and lines, two of its three words.
    assert.ok(s.get('skip')! > s.get('long')!, JSON.stringify([...s]));
    // A test, a class and a chunk without a symbol get nothing; nor does a name without a query word.
    for (const id of ['test', 'klass', 'anon', 'other']) assert.equal(s.has(id), false, id);
    assert.equal(nameShares(items, (id) => defs.get(id), ['nothing', 'here']).size, 0);
  });

  it('reorders a file’s items only within the positions the file holds', () => {
    const ranked = [
      { path: 'a', k: 1 },
      { path: 'b', k: 9 },
      { path: 'a', k: 5 },
      { path: 'c', k: 0 },
      { path: 'a', k: 3 },
    ];
    const out = orderWithinFiles(ranked, (r) => r.k);
    assert.deepEqual(
      out.map((r) => `${r.path}${r.k}`),
      ['a5', 'b9', 'a3', 'c0', 'a1'],
    );
  });

  it('puts the named definition first in its file, leaving the files’ order', () => {
    const ranked = [
      { id: 'test', path: 'src/lib.rs', score: 1 },
      { id: 'other', path: 'src/lib.rs', score: 0.9 },
      { id: 'x', path: 'README.md', score: 0.8 },
      { id: 'skip', path: 'src/lib.rs', score: 0.5 },
    ];
    const out = orderByNames(ranked, (id) => defs.get(id), {
      words: ['empty', 'lines'],
      weight: 1,
    });
    assert.deepEqual(
      out.map((r) => r.id),
      ['skip', 'test', 'x', 'other'],
    );
  });
});

describe('rank with name order', () => {
  const config = { ...DEFAULT_PLANNER_CONFIG, synonyms: DEFAULT_SYNONYMS };
  const kw = (id: string, path: string, score: number, symbol: string) => ({
    id,
    path,
    startLine: 1,
    endLine: 10,
    symbol,
    kind: 'function',
    language: 'rust',
    score,
  });
  // Linear fusion scales keyword scores to 0..1 over the list: `s` fuses at 0.8.
  const hits = [
    kw('p', 'src/lib.rs', 10, 'parse_headers'),
    kw('d', 'src/other.rs', 9, 'decode'),
    kw('s', 'src/lib.rs', 8, 'skip_empty_lines'),
    kw('z', 'src/z.rs', 0, 'zero'),
  ];
  const evidence: BoostEvidence = { definitions: new Set(), contents: new Map() };
  const run = (query: string, options: { nameOrder?: boolean; collapseFiles?: boolean } = {}) => {
    const plan = planQuery(parseQuery(query), { vectorAvailable: false, ...options }, config);
    return rank(plan, fuseSides(plan, { keyword: hits, vector: null }), evidence).map((r) => r.id);
  };

  it('orders a file’s chunks by their names in the chunk list, not with the switch off or for files', () => {
    const q = 'where are empty lines before the request tolerated';
    assert.deepEqual(run(q), ['s', 'd', 'p', 'z']);
    assert.deepEqual(run(q, { nameOrder: false }), ['p', 'd', 's', 'z']);
    assert.deepEqual(run(q, { collapseFiles: true }), ['p', 'd', 'z']);
  });

  it('leaves the words the query writes as code to the definition boost', () => {
    const plan = (q: string) => planQuery(parseQuery(q), { vectorAvailable: false }, config);
    assert.deepEqual(plan('TensorProduct powers fail to evaluate').names?.words, [
      'powers',
      'fail',
      'evaluate',
    ]);
    assert.deepEqual(plan('tensor product powers fail').names?.words, [
      'tensor',
      'product',
      'powers',
      'fail',
    ]);
  });
});
