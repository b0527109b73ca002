import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TermShape } from '../types.js';
import { parseQuery } from './parse.js';
import { classifyToken } from './shape.js';

const cases: [string, TermShape, string?][] = [
  ['D40', 'code'],
  ['E1101', 'code'],
  ['HTTP-404', 'code'],
  ['PII-2024-0042', 'code'],
  ['CVE-2024-1234', 'code'],
  ['utf8', 'code'],
  ['src/a/b.ts', 'path'],
  ['a/b.go:42', 'path', 'a/b.go'],
  ['walk.ts', 'path'],
  ['.env', 'path'],
  ['./scripts/run-tests.mjs', 'path'],
  ['C:\\proj\\x.py', 'path'],
  ['https://example.com/x', 'url'],
  ['os.path.join', 'dotted'],
  ['pkg.Func', 'dotted'],
  ['std::vector', 'dotted'],
  ['Foo#bar', 'dotted'],
  // Member access (PHP, C++), Ruby's predicate and bang methods, PHP and shell variables.
  ['$this->rate', 'dotted'],
  ['node->next', 'dotted'],
  ['Array#empty?', 'dotted'],
  ['user.save!', 'dotted'],
  ['empty?', 'snake'],
  ['$total', 'snake'],
  // A short extension that is also a common member name stays a qualified name.
  ['self.cfg', 'dotted'],
  ['console.log', 'dotted'],
  ['addEdge', 'camel'],
  ['OllamaEmbedder', 'pascal'],
  ['IOError', 'pascal'],
  ['XMLHttpRequest', 'pascal'],
  ['max_file_bytes', 'snake'],
  ['__init__', 'snake'],
  ['MAX_FILE_BYTES', 'screaming'],
  ['max-file-bytes', 'kebab'],
  ['HTTP', 'acronym'],
  ['404', 'number'],
  ['75.1725', 'number'],
  ['v1.2.3', 'number'],
  ['0x1f', 'number'],
  ['Search', 'word'],
  ['scanner', 'word'],
  ["don't", 'word'],
  ['e.g', 'word'],
  ['U.S.C', 'acronym'],
  // Prose with a slash is not a path.
  ['and/or', 'word'],
  ['日本語', 'word'],
];

test('classifyToken gives each token its shape', () => {
  for (const [token, shape, value] of cases) {
    const c = classifyToken(token);
    assert.equal(c.shape, shape, token);
    assert.equal(c.value, value ?? token, token);
  }
});

test('classifyToken reads a line and column suffix off paths', () => {
  assert.deepEqual(classifyToken('src/x.ts:10:5'), {
    shape: 'path',
    value: 'src/x.ts',
    line: 10,
    column: 5,
  });
});

test('the tokenizer keeps ->, ? and ! inside names and out of prose', () => {
  const terms = (q: string) => parseQuery(q).terms.map((t) => [t.value, t.shape]);
  assert.deepEqual(terms('$this->rate is null'), [
    ['$this->rate', 'dotted'],
    ['is', 'word'],
    ['null', 'word'],
  ]);
  assert.deepEqual(terms('InvoiceCalculator->total'), [['InvoiceCalculator->total', 'dotted']]);
  assert.deepEqual(terms('geo::Circle::area'), [['geo::Circle::area', 'dotted']]);
  // A name alone, a qualified name or a call keeps its suffix...
  assert.deepEqual(terms('empty?'), [['empty?', 'snake']]);
  assert.deepEqual(terms('why does Array#empty? fail'), [
    ['why', 'word'],
    ['does', 'word'],
    ['Array#empty?', 'dotted'],
    ['fail', 'word'],
  ]);
  assert.deepEqual(terms('println!("x")').slice(0, 1), [['println!', 'call']]);
  // ...prose does not: questions, exclamations, versions, optional chaining, `!=`, arrows.
  for (const q of ['is it broken?', 'it fails!', 'since 1.7?', 'a?.b', 'a != b', 'f(x) -> int']) {
    assert.ok(
      parseQuery(q).terms.every((t) => !/[?!>]/.test(t.value)),
      `${q}: ${JSON.stringify(terms(q))}`,
    );
  }
  // The analyzer finds the same terms in the code: the suffix and the arrow separate words.
  assert.deepEqual(parseQuery('$this->rate').anchors, ['$this->rate']);
  assert.equal(parseQuery('empty?').isIdentifierOnly, true);
});
