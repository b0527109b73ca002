import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { indexRepository } from '@codesift/pipeline';
import { openSqliteIndex } from '@codesift/stores';
import { openLocalEngine } from './engine.js';
import { stalePaths } from './freshness.js';

/** A real index over a real tree; the tree changes after indexing and nothing re-indexes it. */
async function indexed(t: import('node:test').TestContext, files: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'codesift-fresh-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'repo');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  const indexPath = path.join(dir, 'index.db');
  await indexRepository({ root, indexPath, vectors: false });
  const engine = await openLocalEngine({ indexPath, embedder: null });
  t.after(() => engine.close());
  return { root, engine };
}

const FILES = {
  'src/edited.ts': 'export function parseWidget() { return 1; }\n',
  'src/touched.ts': 'export function parseGadget() { return 2; }\n',
  'src/kept.ts': 'export function parseGizmo() { return 3; }\n',
  'src/deleted.ts': 'export function parseDoohickey() { return 4; }\n',
};

test('hits whose file changed or vanished since indexing are marked stale, the rest not', async (t) => {
  const { root, engine } = await indexed(t, FILES);
  const before = await engine.search({ query: 'parse', limit: 10 });
  assert.equal(before.results.length, 4);
  assert.ok(before.results.every((r) => r.stale === undefined));

  writeFileSync(
    path.join(root, 'src/edited.ts'),
    '\n\nexport function parseWidget() { return 10; }\n',
  );
  // Same bytes, new mtime (a checkout, a touch): the hash says it is still fresh.
  const later = new Date(Date.now() + 5000);
  utimesSync(path.join(root, 'src/touched.ts'), later, later);
  unlinkSync(path.join(root, 'src/deleted.ts'));

  const after = await engine.search({ query: 'parse', limit: 10 });
  const stale = Object.fromEntries(after.results.map((r) => [r.path, r.stale === true]));
  assert.deepEqual(stale, {
    'src/edited.ts': true,
    'src/touched.ts': false,
    'src/kept.ts': false,
    'src/deleted.ts': true,
  });
});

test('getSnippet serves a file only while it is what the index holds; a changed one is stale with no text', async (t) => {
  const { root, engine } = await indexed(t, FILES);
  const fresh = await engine.getSnippet('src/kept.ts', 1, 1);
  assert.equal(fresh.stale, undefined);
  assert.equal(fresh.text, FILES['src/kept.ts'].trimEnd());
  // Same size, other bytes: the hash tells.
  writeFileSync(path.join(root, 'src/kept.ts'), FILES['src/kept.ts'].replace('3', '4'));
  assert.deepEqual(await engine.getSnippet('src/kept.ts', 1, 2), {
    path: 'src/kept.ts',
    startLine: 1,
    endLine: 2,
    language: 'typescript',
    text: '',
    stale: true,
  });
  writeFileSync(path.join(root, 'src/kept.ts'), '// moved down\nexport function parseGizmo() {}\n');
  const changed = await engine.getSnippet('src/kept.ts', 1, 2);
  assert.equal(changed.stale, true);
  assert.equal(changed.text, '');
  // Back to the indexed bytes: served again.
  writeFileSync(path.join(root, 'src/kept.ts'), FILES['src/kept.ts']);
  assert.equal((await engine.getSnippet('src/kept.ts', 1, 1)).stale, undefined);
});

test('stalePaths reads the records and stored texts of all paths at once where the store can', async (t) => {
  const { root } = await indexed(t, FILES);
  writeFileSync(path.join(root, 'src/edited.ts'), 'changed\n');
  const index = openSqliteIndex(path.join(root, '..', 'index.db'), { readonly: true });
  t.after(() => index.close());
  const paths = Object.keys(FILES);
  const calls = { get: 0, getMany: 0, textGet: 0, stored: 0 };
  const counting =
    <A extends unknown[], R>(name: keyof typeof calls, fn: (...args: A) => R) =>
    (...args: A): R => {
      calls[name]++;
      return fn(...args);
    };
  const counted = (batched: boolean) => ({
    meta: async () => index.meta(),
    manifest: {
      get: counting('get', (p: string) => index.manifest.get(p)),
      ...(batched ? { getMany: counting('getMany', index.manifest.getMany!) } : {}),
    },
    fileTexts: {
      get: counting('textGet', (p: string) => index.fileTexts.get(p)),
      ...(batched ? { stored: counting('stored', index.fileTexts.stored!) } : {}),
    },
  });
  const batched = await stalePaths(counted(true), paths);
  assert.deepEqual(calls, { get: 0, getMany: 1, textGet: 0, stored: 1 });
  // A store without the batched reads (the cluster's) is asked path by path, same answer.
  const oneByOne = await stalePaths(counted(false), paths);
  assert.deepEqual(calls, { get: 4, getMany: 1, textGet: 4, stored: 1 });
  assert.deepEqual([...batched], ['src/edited.ts']);
  assert.deepEqual([...oneByOne], ['src/edited.ts']);
});
