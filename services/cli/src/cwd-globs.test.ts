import assert from 'node:assert/strict';
import { test } from 'node:test';
import { globsFromCwd } from './cwd-globs.js';
import { UsageError } from './io.js';

test('globs from a subdirectory are read from there, as git reads pathspecs', () => {
  const root = '/repo';
  const fromSrc = (g: string) => globsFromCwd([g], root, '/repo/src')[0];
  assert.equal(fromSrc('sub/**'), 'src/sub/**');
  assert.equal(fromSrc('graph.py'), 'src/graph.py');
  assert.equal(fromSrc('sub/'), 'src/sub');
  assert.equal(fromSrc('*.go'), 'src/**/*.go');
  assert.equal(fromSrc('../docs/**'), 'docs/**');
  assert.equal(fromSrc('..'), '**');
  assert.equal(fromSrc(':/docs/**'), 'docs/**');
  assert.throws(() => fromSrc('../../etc'), UsageError);
});

test('at the root, outside it, or without a root, globs stand as given', () => {
  for (const [root, cwd] of [
    ['/repo', '/repo'],
    ['/repo', '/elsewhere'],
    [null, '/repo/src'],
  ] as const) {
    assert.deepEqual(globsFromCwd(['src/**', '*.go'], root, cwd), ['src/**', '*.go']);
  }
  assert.deepEqual(globsFromCwd([':/src/**'], '/repo', '/elsewhere'), ['src/**']);
});
