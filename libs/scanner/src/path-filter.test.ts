import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PathFilter } from './path-filter.js';
import { scan } from './scan.js';
import { makeTree } from './testing/make-tree.js';

const TREE = {
  '.gitignore': '*.log\nlogs/\n',
  '.codesiftignore': 'secret-notes.md\n',
  'a.log': '',
  'a.ts': 'export const a = 1;\n',
  'secret-notes.md': '',
  'logs/x.txt': '',
  'sub/.gitignore': '!keep.log\n/local.txt\n',
  'sub/keep.log': '',
  'sub/other.log': '',
  'sub/local.txt': '',
  'sub/deeper/local.txt': '',
  'node_modules/dep/index.js': '',
  'dist/out.js': '',
  'package-lock.json': '{}',
  '.env': 'X=1',
  'img.png': '',
  '.codesift/index.db': '',
  'src/ok.py': 'x = 1\n',
};

test('keeps exactly the files the scan keeps, for the rules it can decide by path', async (t) => {
  const root = makeTree(t, TREE);
  const scanned = new Set((await scan({ root })).files.map((f) => f.path));
  const filter = new PathFilter({ root, excludeDirs: [path.join(root, '.codesift')] });
  for (const rel of Object.keys(TREE)) {
    assert.equal(filter.ignores(rel, 'file'), !scanned.has(rel), rel);
  }
});

test('directories: ignored, vendored, generated and the index directory are left out', (t) => {
  const root = makeTree(t, TREE);
  const filter = new PathFilter({ root, excludeDirs: [path.join(root, 'out-of-tree-index')] });
  for (const dir of ['logs', 'node_modules', 'node_modules/dep', 'dist', '.codesift', '.git']) {
    assert.equal(filter.ignores(dir, 'directory'), true, dir);
  }
  for (const dir of ['sub', 'sub/deeper', 'src'])
    assert.equal(filter.ignores(dir, 'directory'), false);
  assert.equal(filter.ignores('out-of-tree-index/index.db', 'file'), true);
  assert.equal(filter.ignores('', 'directory'), false);
});

test('an index directory outside the root, even its parent, excludes nothing', (t) => {
  const root = makeTree(t, TREE);
  const filter = new PathFilter({ root, excludeDirs: [path.dirname(root), root] });
  assert.equal(filter.ignores('src/ok.py', 'file'), false);
  assert.equal(filter.ignores('src', 'directory'), false);
});

test('an unknown kind is left out only when both readings are', (t) => {
  const root = makeTree(t, TREE);
  const filter = new PathFilter({ root });
  assert.equal(
    filter.ignores('node_modules', 'unknown'),
    false,
    'a file named node_modules is kept',
  );
  assert.equal(filter.ignores('logs', 'unknown'), false);
  assert.equal(filter.ignores('x.log', 'unknown'), true, '*.log matches either way');
  assert.equal(filter.ignores('node_modules/a.js', 'unknown'), true, 'inside a left-out directory');
});

test('reset() picks up a changed ignore file; relative() maps paths inside the root only', (t) => {
  const root = makeTree(t, TREE);
  const filter = new PathFilter({ root });
  assert.equal(filter.ignores('src/ok.py', 'file'), false);
  writeFileSync(path.join(root, '.codesiftignore'), 'src/\n');
  assert.equal(filter.ignores('src/ok.py', 'file'), false, 'cached until reset');
  filter.reset();
  assert.equal(filter.ignores('src/ok.py', 'file'), true);
  assert.equal(filter.relative(path.join(root, 'src', 'ok.py')), 'src/ok.py');
  assert.equal(filter.relative(path.dirname(root)), undefined);
  assert.equal(PathFilter.isIgnoreFile('sub/.gitignore'), true);
  assert.equal(PathFilter.isIgnoreFile('sub/gitignore.ts'), false);
});
