import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ParsedQuery, QueryNode, TermNode } from '../types.js';
import { parseQuery } from './parse.js';

function content(q: ParsedQuery): TermNode[] {
  return q.terms.filter((t) => !t.stop);
}

/** Every node, nested ones included, must point at its own text. */
function assertPositions(q: ParsedQuery): void {
  const check = (n: { text: string; start: number; end: number }): void => {
    assert.ok(n.start >= 0 && n.start <= n.end && n.end <= q.input.length);
    assert.equal(q.input.slice(n.start, n.end), n.text);
  };
  const walk = (nodes: readonly QueryNode[]): void => {
    for (const n of nodes) {
      check(n);
      if (n.kind === 'phrase' || n.kind === 'trace') walk(n.terms);
    }
  };
  walk(q.nodes);
  for (const t of q.terms) check(t);
  for (let i = 1; i < q.nodes.length; i++) {
    assert.ok(q.nodes[i - 1]!.end <= q.nodes[i]!.start, 'top-level nodes are ordered and disjoint');
  }
}

test('"D40" is one code, fully specific, identifier-only', () => {
  const q = parseQuery('D40');
  assert.equal(q.nodes.length, 1);
  const [t] = q.terms;
  assert.equal(t?.shape, 'code');
  assert.equal(t?.value, 'D40');
  assert.equal(q.specificity, 1);
  assert.equal(q.isIdentifierOnly, true);
  assert.deepEqual(q.anchors, ['D40']);
});

test('"Tell me about D40" keeps D40 as a code inside natural language', () => {
  const q = parseQuery('Tell me about D40');
  assert.deepEqual(
    q.terms.map((t) => [t.value, t.shape, t.stop]),
    [
      ['Tell', 'word', true],
      ['me', 'word', true],
      ['about', 'word', true],
      ['D40', 'code', false],
    ],
  );
  assert.ok(q.specificity < 1 && q.specificity > 0.3);
  assert.equal(q.isIdentifierOnly, false);
  assert.deepEqual(q.anchors, ['D40']);
});

test('"30 CFR 75.1725" is one code', () => {
  const q = parseQuery('30 CFR 75.1725');
  assert.equal(q.terms.length, 1);
  assert.equal(q.terms[0]!.shape, 'code');
  assert.equal(q.terms[0]!.value, '30 CFR 75.1725');
  assert.equal(q.isIdentifierOnly, true);
  assert.equal(parseQuery('see RFC 7231 please').terms[1]!.value, 'RFC 7231');
  // Not merged across a line break or without a number after the acronym.
  assert.equal(parseQuery('HTTP\n404').terms.length, 2);
  assert.equal(parseQuery('30 CFR rules').terms.length, 3);
});

test('"Search function" is natural language', () => {
  const q = parseQuery('Search function');
  assert.deepEqual(
    q.terms.map((t) => [t.value, t.shape]),
    [
      ['Search', 'word'],
      ['function', 'word'],
    ],
  );
  assert.equal(q.specificity, 0);
  assert.equal(q.isIdentifierOnly, false);
  assert.deepEqual(q.anchors, []);
});

test('"OllamaEmbedder" is an identifier', () => {
  const q = parseQuery('OllamaEmbedder');
  assert.equal(q.terms[0]!.shape, 'pascal');
  assert.equal(q.isIdentifierOnly, true);
});

test('identifier shapes, calls and positions', () => {
  const input =
    'addEdge OllamaEmbedder max_file_bytes MAX_FILE_BYTES max-file-bytes os.path.join pkg.Func ' +
    'src/a/b.ts a/b.go:42 E1101 HTTP-404 PII-2024-0042 foo() bar(x) words';
  const q = parseQuery(input);
  assert.deepEqual(
    q.terms.map((t) => [t.value, t.shape]),
    [
      ['addEdge', 'camel'],
      ['OllamaEmbedder', 'pascal'],
      ['max_file_bytes', 'snake'],
      ['MAX_FILE_BYTES', 'screaming'],
      ['max-file-bytes', 'kebab'],
      ['os.path.join', 'dotted'],
      ['pkg.Func', 'dotted'],
      ['src/a/b.ts', 'path'],
      ['a/b.go', 'path'],
      ['E1101', 'code'],
      ['HTTP-404', 'code'],
      ['PII-2024-0042', 'code'],
      ['foo', 'call'],
      ['bar', 'call'],
      ['x', 'word'],
      ['words', 'word'],
    ],
  );
  const goPath = q.terms[8]!;
  assert.equal(goPath.text, 'a/b.go:42');
  assert.equal(goPath.line, 42);
  const foo = q.terms[12]!;
  assert.equal(foo.text, 'foo()');
  assert.equal(input.slice(foo.start, foo.end), 'foo()');
  assertPositions(q);
});

test('punctuation around terms is trimmed; apostrophes and plurals stay prose', () => {
  const q = parseQuery("Why does `addEdge` fail? It's called from walk.ts, see function(s).");
  const values = content(q).map((t) => `${t.value}:${t.shape}`);
  // The `s` of `function(s)` is a lone letter: a filler, not content.
  assert.deepEqual(values, [
    'addEdge:camel',
    'fail:word',
    "It's:word",
    'called:word',
    'walk.ts:path',
    'see:word',
    'function:word',
  ]);
  assertPositions(q);
});

test('quoted phrases keep their words; unclosed quotes are ignored', () => {
  const q = parseQuery(`find "insert into calls" and 'graph edges' but don't stop`);
  const phrases = q.nodes.filter((n) => n.kind === 'phrase');
  assert.deepEqual(
    phrases.map((p) => [p.value, p.quote, p.terms.map((t) => t.value)]),
    [
      ['insert into calls', '"', ['insert', 'into', 'calls']],
      ['graph edges', "'", ['graph', 'edges']],
    ],
  );
  assert.ok(q.terms.some((t) => t.value === "don't"));
  assert.deepEqual(
    parseQuery('it\u2019s \u2018quoted\u2019').nodes.map((n) => n.text),
    ['it\u2019s', '\u2018quoted\u2019'],
  );
  assert.deepEqual(q.anchors, ['insert into calls', 'graph edges']);
  assertPositions(q);
  const open = parseQuery('say "hello world');
  assert.deepEqual(
    open.terms.map((t) => t.value),
    ['say', 'hello', 'world'],
  );
  assertPositions(open);
});

test('filters are parsed and cut out of the text', () => {
  const q = parseQuery(
    'lang:go language:Python lang:ts,rs path:src/** -path:**/test/** file:README.md ' +
      '-lang:js addEdge path:"my dir/**" repo:codesift',
  );
  assert.deepEqual(q.filters, {
    languages: ['go', 'python', 'typescript', 'rust'],
    excludeLanguages: ['javascript'],
    include: ['src/**', 'README.md', 'my dir/**'],
    exclude: ['**/test/**'],
  });
  assert.equal(q.text, 'addEdge repo:codesift');
  // An alias resolves to its id; an unknown language is kept as typed, for the engine to refuse.
  assert.deepEqual(parseQuery('lang:golang,C++ lang:Klingon x').filters.languages, [
    'go',
    'cpp',
    'klingon',
  ]);
  // Unknown keys are text.
  assert.deepEqual(
    q.terms.map((t) => t.value),
    ['addEdge', 'repo:codesift'],
  );
  const f = q.nodes.find((n) => n.kind === 'filter' && n.negated && n.field === 'path');
  assert.equal(f?.text, '-path:**/test/**');
  assertPositions(q);
});

test('a filter needs a value and a word start', () => {
  const q = parseQuery('lang: go xpath:foo');
  assert.equal(q.nodes.filter((n) => n.kind === 'filter').length, 0);
  assert.deepEqual(q.filters.languages, []);
  assert.equal(q.text, 'lang: go xpath:foo');
});

test('the text keeps the user words around filters', () => {
  assert.equal(
    parseQuery('how is  lang:go   the scanner tested').text,
    'how is the scanner tested',
  );
  assert.equal(parseQuery('  plain query  ').text, 'plain query');
});

test('stack traces become trace nodes; the prose around them stays', () => {
  const q = parseQuery(
    'Indexing crashes:\nTraceback (most recent call last):\n' +
      '  File "/app/src/codesift/indexer.py", line 118, in build_index\n' +
      '    chunks = chunk_file(path)\n' +
      'ValueError: bad value\nany idea?',
  );
  assert.equal(q.hasTrace, true);
  assert.deepEqual(
    q.nodes.map((n) => n.kind),
    ['term', 'term', 'trace', 'term', 'term'],
  );
  assert.ok(q.anchors.includes('build_index'));
  assert.ok(q.anchors.includes('/app/src/codesift/indexer.py'));
  assertPositions(q);
});

test('never throws and stays consistent on hostile input', () => {
  let seed = 7;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const alphabet =
    'abcXYZ019 _-./:\\\'"`()[]{}<>,;=!?@#$%^&*~\n\t\r\u00e9\u4e2d\u2018\u2019\u201c\u201d\ud83d\ude00';
  const pieces = [
    'lang:',
    'path:"',
    '-path:',
    'File "',
    '", line ',
    '    at ',
    'Error: ',
    'panic: ',
    "thread 'main' panicked at ",
    '\tat com.x.Y.z(',
    'goroutine 1 [running]:\n',
    '\t/x.go:',
    '30 CFR ',
    'D40',
  ];
  for (let round = 0; round < 20; round++) {
    let s = '';
    while (s.length < 20 * 1024) {
      s +=
        next() < 0.2
          ? pieces[Math.floor(next() * pieces.length)]
          : alphabet[Math.floor(next() * alphabet.length)];
    }
    const q = parseQuery(s);
    assert.ok(q.specificity >= 0 && q.specificity <= 1);
    assertPositions(q);
  }
  for (const s of ['', ' ', '"', "'", '""', "''", '-', 'lang:', '()', '\n\n', '\u0000']) {
    assertPositions(parseQuery(s));
  }
});
