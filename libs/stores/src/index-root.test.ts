import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { defaultIndexPath, rootOfIndexFile } from './index-root.js';

const work = mkdtempSync(path.join(tmpdir(), 'codesift-index-root-'));
after(() => rmSync(work, { recursive: true, force: true }));

function indexedTree(name: string): string {
  const root = path.join(work, name);
  mkdirSync(path.join(root, '.codesift'), { recursive: true });
  writeFileSync(defaultIndexPath(root), 'x');
  return root;
}

test('an index in its default place searches the directory holding it, wherever it moved', () => {
  const built = indexedTree('built');
  assert.equal(rootOfIndexFile(defaultIndexPath(built), built), built);
  const moved = path.join(work, 'moved');
  renameSync(built, moved);
  assert.equal(rootOfIndexFile(defaultIndexPath(moved), built), moved);
  // A copy beside a still existing original is its own root too.
  const copy = path.join(work, 'copy');
  cpSync(moved, copy, { recursive: true });
  assert.equal(rootOfIndexFile(defaultIndexPath(copy), moved), copy);
  assert.equal(rootOfIndexFile(defaultIndexPath(copy), null), copy);
});

test('an index kept elsewhere keeps the root it was built for', () => {
  const file = path.join(work, 'cache', 'repo.db');
  assert.equal(rootOfIndexFile(file, '/some/repo'), '/some/repo');
  assert.equal(rootOfIndexFile(file, null), null);
});
