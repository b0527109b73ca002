import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '../query/parse.js';
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
