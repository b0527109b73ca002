import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileRecord, ScannedFile } from '@codesift/core';
import { planIndex } from './plan.js';

const file = (p: string, size: number, mtimeMs: number): ScannedFile => ({
  path: p,
  absPath: `/r/${p}`,
  size,
  mtimeMs,
  language: 'typescript',
});
const rec = (p: string, size: number, mtimeMs: number): FileRecord => ({
  path: p,
  hash: 'h',
  size,
  mtimeMs,
  language: 'typescript',
  chunkCount: 1,
  symbolCount: 0,
  indexedAt: 0,
});

test('planIndex reads new and stat-changed files, skips the rest, deletes vanished ones', () => {
  const manifest = new Map([
    ['same.ts', rec('same.ts', 10, 1)],
    ['grown.ts', rec('grown.ts', 10, 1)],
    ['touched.ts', rec('touched.ts', 10, 1)],
    ['gone.ts', rec('gone.ts', 10, 1)],
  ]);
  const plan = planIndex(
    [
      file('same.ts', 10, 1),
      file('grown.ts', 11, 1),
      file('touched.ts', 10, 2),
      file('new.ts', 5, 1),
    ],
    manifest,
    false,
  );
  assert.deepEqual(
    plan.toProcess.map((e) => [e.file.path, e.previous !== undefined]),
    [
      ['grown.ts', true],
      ['touched.ts', true],
      ['new.ts', false],
    ],
  );
  assert.equal(plan.unchanged, 1);
  assert.deepEqual(plan.toDelete, ['gone.ts']);
});

test('planIndex with rebuild re-processes everything', () => {
  const manifest = new Map([['a.ts', rec('a.ts', 1, 1)]]);
  const plan = planIndex([file('a.ts', 1, 1)], manifest, true);
  assert.equal(plan.toProcess.length, 1);
  assert.equal(plan.unchanged, 0);
});
