import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IgnoreRules, rebasePattern } from './ignore-rules.js';

test('rebasePattern anchors slashed patterns and lets bare names match at any depth', () => {
  assert.equal(rebasePattern('*.log', 'pkg'), 'pkg/**/*.log');
  assert.equal(rebasePattern('/local.txt', 'pkg'), 'pkg/local.txt');
  assert.equal(rebasePattern('docs/*.md', 'pkg'), 'pkg/docs/*.md');
  assert.equal(rebasePattern('out/', 'pkg'), 'pkg/**/out/');
  assert.equal(rebasePattern('!keep.log', 'a/b'), '!a/b/**/keep.log');
  assert.equal(rebasePattern('*.tmp   ', 'a'), 'a/**/*.tmp');
  assert.equal(rebasePattern('# comment', 'a'), undefined);
  assert.equal(rebasePattern('   ', 'a'), undefined);
  assert.equal(rebasePattern('*.log', ''), '*.log', 'root patterns are used as they are');
});

test('rebasePattern escapes glob characters in directory names', () => {
  const rules = IgnoreRules.root([]).withFile('x[1]', ['*.log']);
  assert.equal(rules.test('x[1]/a.log', false).ignored, true);
  assert.equal(rules.test('x1/a.log', false).ignored, false);
});

test('a deeper negation re-includes a directory the root excludes, and what is inside it', () => {
  const rules = IgnoreRules.root([]).withFile('', ['logs/']).withFile('pkg', ['!logs/']);
  assert.equal(rules.test('logs', true).ignored, true);
  assert.equal(rules.test('pkg/logs', true).ignored, false);
  assert.equal(rules.test('pkg/logs/today.txt', false).ignored, false);
});

test('extra patterns outrank the ignore files', () => {
  const rules = IgnoreRules.root(['*.txt']).withFile('', ['!notes.txt']);
  assert.equal(rules.test('notes.txt', false).ignored, true);
  const reincluded = IgnoreRules.root(['!keep.md']).withFile('', ['*.md']);
  assert.equal(reincluded.test('keep.md', false).ignored, false);
  assert.equal(reincluded.test('keep.md', false).unignored, true);
  assert.equal(reincluded.test('other.md', false).ignored, true);
});
