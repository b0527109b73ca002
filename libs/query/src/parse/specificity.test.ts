import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from './parse.js';

function near(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
}

test('specificity follows sum(w) / sum(c), hand-computed', () => {
  // One code: 1 / 1.
  near(parseQuery('D40').specificity, 1, 'D40');
  // Three fillers (0.25 each) and one code: 1 / (1 + 0.75).
  near(parseQuery('Tell me about D40').specificity, 1 / 1.75, 'Tell me about D40');
  // Words only: 0.
  near(parseQuery('Search function').specificity, 0, 'Search function');
  near(parseQuery('how are edges inserted into the graph').specificity, 0, 'prose');
  // where, is: fillers (0.5); OllamaEmbedder 1; defined 0 (c = 1): 1 / 2.5.
  near(parseQuery('where is OllamaEmbedder defined').specificity, 0.4, 'mixed');
  // A kebab word is worth 0.7, a plain word 0: 0.7 / 2.
  near(parseQuery('read-only mode').specificity, 0.35, 'kebab');
  // A prose phrase is worth 0.5; a phrase around an identifier is worth the identifier.
  near(parseQuery('"exact words"').specificity, 0.5, 'prose phrase');
  near(parseQuery('"addEdge"').specificity, 1, 'identifier phrase');
  // Filters are not units.
  near(parseQuery('lang:go D40').specificity, 1, 'filter');
  near(parseQuery('').specificity, 0, 'empty');
});

test('isIdentifierOnly needs every unit to be an identifier, code or path', () => {
  for (const q of [
    'D40',
    'OllamaEmbedder',
    '30 CFR 75.1725',
    'addEdge removeEdge',
    'src/a.ts foo()',
  ]) {
    assert.equal(parseQuery(q).isIdentifierOnly, true, q);
  }
  for (const q of ['Tell me about D40', 'Search function', 'scanner', '', 'lang:go', 'HTTP']) {
    assert.equal(parseQuery(q).isIdentifierOnly, false, q);
  }
  assert.equal(parseQuery('"os.path.join" lang:python').isIdentifierOnly, true);
});

test('a bug report lands between prose and identifiers', () => {
  const q = parseQuery(
    'The indexer crashes on big repos:\n' +
      'Traceback (most recent call last):\n' +
      '  File "/app/codesift/indexer.py", line 118, in build_index\n' +
      '    chunks = chunk_file(path)\n' +
      'ValueError: invalid literal for int() with base 10\n',
  );
  assert.ok(q.specificity > 0.2 && q.specificity < 0.8, String(q.specificity));
  assert.equal(q.isIdentifierOnly, false);
});
