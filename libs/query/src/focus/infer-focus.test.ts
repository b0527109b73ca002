import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '../parse/parse.js';
import { inferFocus } from './infer-focus.js';

function focus(q: string): string {
  return inferFocus(parseQuery(q)).focus;
}

test('questions about tests focus on tests', () => {
  for (const q of [
    'how is the scanner tested',
    'test for addEdge',
    'where are the fixtures for the chunker',
    'mock the embedder',
    'spec of the rewrite heuristic',
    'test_parse_query',
    'WalkerTest',
    'internal/scanner/walk_test.go',
    'where is TestWalker defined',
  ]) {
    assert.equal(focus(q), 'tests', q);
  }
});

test('questions about code focus on the implementation', () => {
  for (const q of [
    'how does the scanner skip binary files',
    'where is OllamaEmbedder implemented',
    'OllamaEmbedder',
    'D40',
    'Search function',
    'how are edges inserted into the graph',
    'isTestPath',
    'chunking code without tests',
    'TypeError: Cannot read properties of undefined\n    at chunkFile (/app/src/chunker.js:41:23)',
  ]) {
    assert.equal(focus(q), 'implementation', q);
  }
});

test('both or nothing gives all', () => {
  assert.equal(focus('where is the walker implemented and how is it tested'), 'all');
  assert.equal(focus(''), 'all');
  assert.equal(focus('lang:go'), 'all');
});

test('the reason names the cue', () => {
  assert.match(inferFocus(parseQuery('how is the scanner tested')).reason, /tested/);
  assert.match(inferFocus(parseQuery('how does the scanner work')).reason, /how does/);
  assert.match(inferFocus(parseQuery('scanner')).reason, /^default/);
});

test('pasted material in a bug report is not a cue (reports on, the default)', () => {
  const env = '\n\nINSTALLED VERSIONS\ncommit: None\nnumpy: 1.19.4\npandas: 1.1.4\npytest: 6.2.1\n';
  const report = `Dataset.update loses the chunking of dask arrays${env}`;
  assert.equal(focus(report), 'implementation');
  // Off: the version line's "pytest" decides, as before.
  assert.equal(inferFocus(parseQuery(report), { reports: false }).focus, 'tests');

  const code = 'Plot fails with hue\n```python\nimport pytest\nassert plot(x) is not None\n```\n';
  assert.equal(focus(code), 'implementation');
  assert.equal(focus('>>> import pytest\nwhy does collection fail'), 'implementation');

  const prose = 'word '.repeat(90);
  const long = `Digest auth sends unquoted qop\n${prose}\nI tested this with two servers and a mock.`;
  assert.equal(focus(long), 'implementation');
  assert.equal(inferFocus(parseQuery(long), { reports: false }).focus, 'tests');
  // A test word in the lead of a long report still decides.
  assert.equal(focus(`test_merge fails on empty input\n${prose}`), 'tests');
  // Short multi-line questions are read whole.
  assert.equal(focus('where is the walker\nand how is it tested'), 'tests');
});

test("the repository's own test words are no cue; the others still are", () => {
  const ownTestWords = new Set(['test', 'tests', 'pytest']);
  const q = 'pytest --pdb does not run tearDown for skipped tests';
  assert.equal(focus(q), 'tests');
  const own = inferFocus(parseQuery(q), { ownTestWords });
  assert.equal(own.focus, 'implementation');
  assert.match(own.reason, /"pytest" names this repository's own code/);
  // A test word the repository does not use for its code still asks for tests.
  assert.equal(
    inferFocus(parseQuery('tests for the fixtures of the runner'), { ownTestWords }).focus,
    'tests',
  );
  // And so does a test identifier.
  assert.equal(inferFocus(parseQuery('where is test_skip_marks'), { ownTestWords }).focus, 'tests');
});
