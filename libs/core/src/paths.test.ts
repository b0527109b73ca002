import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodesiftError } from './errors.js';
import { chunkId } from './ids.js';
import { isInside, resolveInsideRoot } from './paths.js';

test('resolveInsideRoot accepts paths below the root', () => {
  assert.equal(resolveInsideRoot('/repo', 'src/a.ts'), '/repo/src/a.ts');
  assert.equal(resolveInsideRoot('/repo', './src/../b.ts'), '/repo/b.ts');
});

test('resolveInsideRoot refuses escapes, absolute paths and NUL bytes', () => {
  for (const bad of ['../etc/passwd', 'src/../../x', '/etc/passwd', 'a\0b']) {
    assert.throws(
      () => resolveInsideRoot('/repo', bad),
      (e: unknown) => {
        return e instanceof CodesiftError && e.code === 'PATH_OUTSIDE_ROOT';
      },
    );
  }
});

test('isInside distinguishes siblings sharing a prefix', () => {
  assert.equal(isInside('/repo', '/repo/x'), true);
  assert.equal(isInside('/repo', '/repository/x'), false);
});

test('chunkId is deterministic and sensitive to path, range and content', () => {
  const a = chunkId('a.ts', 1, 3, 'x');
  assert.equal(a, chunkId('a.ts', 1, 3, 'x'));
  assert.notEqual(a, chunkId('b.ts', 1, 3, 'x'));
  assert.notEqual(a, chunkId('a.ts', 2, 3, 'x'));
  assert.notEqual(a, chunkId('a.ts', 1, 3, 'y'));
  assert.match(a, /^[0-9a-f]{32}$/);
});
