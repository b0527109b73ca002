import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createChunker } from '@codesift/chunking';
import { openSqliteIndex } from '@codesift/stores';
import {
  type IndexWatcher,
  type WatchBatch,
  type WatchChange,
  watchIndex,
} from './index-watcher.js';
import { defaultIndexPath, indexRepository } from './local-runner.js';

/**
 * A real tree, a real SQLite index and the real incremental indexer under
 * the watcher: each test changes files on disk and waits for the batch
 * that indexes them. Timing: a change is indexed within a few hundred ms
 * here; the waits allow 10 s so a loaded machine does not fail them.
 */
const chunker = createChunker();

interface Harness {
  root: string;
  indexPath: string;
  watcher: IndexWatcher;
  batches: WatchBatch[];
  /** Resolves with the first batch after `from` that satisfies `ok`. */
  batchAfter(from: number, ok?: (b: WatchBatch) => boolean): Promise<WatchBatch>;
  /** Root-relative paths the index's manifest holds. */
  indexed(): Promise<string[]>;
  /** Paths of chunks holding `word`. */
  find(word: string): Promise<string[]>;
}

async function startWatching(
  t: import('node:test').TestContext,
  files: Record<string, string>,
  options: { debounceMs?: number } = {},
): Promise<Harness> {
  const root = mkdtempSync(path.join(tmpdir(), 'codesift-watch-'));
  write(root, files);
  const indexPath = defaultIndexPath(root);
  // As codesift watch: the changed files alone when the watch says so.
  const reindex = async (change?: WatchChange) =>
    indexRepository({
      root,
      indexPath,
      vectors: false,
      chunker: await chunker,
      ...(change?.files ? { only: change.files } : {}),
    });
  await reindex();
  const batches: WatchBatch[] = [];
  const waiters = new Set<() => void>();
  const watcher = await watchIndex({
    root,
    indexPath,
    reindex,
    debounceMs: options.debounceMs ?? 100,
    onBatch: (b) => {
      batches.push(b);
      for (const wake of waiters) wake();
    },
  });
  t.after(async () => {
    await watcher.close();
    rmSync(root, { recursive: true, force: true });
  });
  const read = async <T>(fn: (ix: ReturnType<typeof openSqliteIndex>) => Promise<T>) => {
    const ix = openSqliteIndex(indexPath, { readonly: true });
    try {
      return await fn(ix);
    } finally {
      ix.close();
    }
  };
  return {
    root,
    indexPath,
    watcher,
    batches,
    batchAfter(from, ok = () => true) {
      return new Promise((resolve, reject) => {
        const timeout = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no batch after ${from} in 10 s: ${JSON.stringify(batches)}`));
        }, 10_000);
        const check = () => {
          const found = batches.slice(from).find(ok);
          if (!found) return;
          clearTimeout(timeout);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
    indexed: () => read(async (ix) => [...(await ix.manifest.all()).keys()].sort()),
    find: (word) =>
      read(async (ix) => {
        const hits = await ix.keyword.search({ terms: [{ term: word }], limit: 100 });
        return [...new Set(hits.map((hit) => hit.path))].sort();
      }),
  };
}

function write(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

const FILES = {
  'src/a.ts': 'export function alpha() { return 1; }\n',
  'src/b.ts': 'export function bravo() { return 2; }\n',
  '.gitignore': 'scratch/\n*.tmp\n',
};

test('an edit, an add, a delete and a rename are each indexed by the watch', async (t) => {
  const h = await startWatching(t, FILES);

  let n = h.batches.length;
  write(h.root, { 'src/a.ts': 'export function zulufresh() { return 3; }\n' });
  const batch = await h.batchAfter(n, (b) => b.summary?.filesChanged === 1);
  assert.deepEqual(batch.paths, ['src/a.ts']);
  assert.equal(batch.summary?.filesScanned, 1, 'the changed file alone was looked at');
  assert.deepEqual(await h.find('zulufresh'), ['src/a.ts']);
  assert.deepEqual(await h.find('alpha'), [], 'the old text is gone');

  n = h.batches.length;
  write(h.root, { 'src/new/c.ts': 'export function charlie() {}\n' });
  await h.batchAfter(n, (b) => b.summary?.filesNew === 1);
  assert.deepEqual(await h.find('charlie'), ['src/new/c.ts']);

  n = h.batches.length;
  unlinkSync(path.join(h.root, 'src/b.ts'));
  await h.batchAfter(n, (b) => b.summary?.filesDeleted === 1);
  assert.deepEqual(await h.find('bravo'), []);

  n = h.batches.length;
  renameSync(path.join(h.root, 'src/new/c.ts'), path.join(h.root, 'src/renamed.ts'));
  await h.batchAfter(n, (b) => (b.summary?.filesDeleted ?? 0) >= 1 && b.summary?.filesNew === 1);
  assert.deepEqual(await h.indexed(), ['.gitignore', 'src/a.ts', 'src/renamed.ts']);
  assert.deepEqual(await h.find('charlie'), ['src/renamed.ts']);

  n = h.batches.length;
  rmSync(path.join(h.root, 'src'), { recursive: true });
  await h.batchAfter(n, (b) => (b.summary?.filesDeleted ?? 0) === 2);
  assert.deepEqual(await h.indexed(), ['.gitignore']);
});

test('ignored files and the index directory trigger no run', async (t) => {
  const h = await startWatching(t, { ...FILES, 'node_modules/dep/x.js': '' });
  const runs = h.watcher.runs;
  write(h.root, {
    'scratch/gen.ts': 'export const x = 1;\n',
    'note.tmp': 'scratch',
    'node_modules/dep/x.js': 'module.exports = 1;\n',
    'dist/bundle.js': 'var a;\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
  });
  // The indexer's own writes: what a run does to .codesift/ must not start another.
  writeFileSync(path.join(h.root, '.codesift', 'scratch.db'), 'x');
  await new Promise((resolve) => setTimeout(resolve, 800));
  await h.watcher.settled();
  assert.equal(h.watcher.runs, runs, JSON.stringify(h.batches));

  // One real change: exactly one run, and the index's writes during it start no second.
  write(h.root, { 'src/a.ts': 'export function afterignored() {}\n' });
  await h.batchAfter(h.batches.length);
  await new Promise((resolve) => setTimeout(resolve, 800));
  await h.watcher.settled();
  assert.equal(h.watcher.runs, runs + 1, JSON.stringify(h.batches));
});

test('a burst of changes (a branch switch) is one batched run', async (t) => {
  const h = await startWatching(t, FILES, { debounceMs: 300 });
  const n = h.batches.length;
  const burst: Record<string, string> = {};
  for (let i = 0; i < 200; i++)
    burst[`pkg${i % 10}/file${i}.ts`] = `export const burst${i} = ${i};\n`;
  write(h.root, burst);
  unlinkSync(path.join(h.root, 'src/b.ts'));
  const batch = await h.batchAfter(n);
  await h.watcher.settled();
  assert.equal(h.batches.length - n, 1, JSON.stringify(h.batches.slice(n).map((b) => b.changes)));
  assert.equal(batch.summary?.filesNew, 200);
  assert.equal(batch.summary?.filesDeleted, 1);
  assert.ok(batch.changes >= 201, `${batch.changes} changes`);
  assert.equal(batch.paths.length, 50, 'the batch lists at most 50 paths');
  assert.deepEqual(await h.find('burst199'), ['pkg9/file199.ts']);
});

test('a changed ignore file re-applies the rules, to the watch as to the index', async (t) => {
  const h = await startWatching(t, { ...FILES, 'scratch/kept.ts': 'export const outside = 1;\n' });
  let n = h.batches.length;
  write(h.root, { '.gitignore': '*.tmp\n' });
  await h.batchAfter(n, (b) => b.summary?.filesNew === 1);
  assert.ok(
    (await h.indexed()).includes('scratch/kept.ts'),
    'scratch/ is indexed once no longer ignored',
  );
  // scratch/ was not watched before: after the restart its changes are seen.
  n = h.batches.length;
  write(h.root, { 'scratch/kept.ts': 'export const nowwatched = 1;\n' });
  await h.batchAfter(n, (b) => b.summary?.filesChanged === 1);
  assert.deepEqual(await h.find('nowwatched'), ['scratch/kept.ts']);
});

test('a run that throws is reported and the next change is indexed', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'codesift-watch-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  write(root, FILES);
  const indexPath = defaultIndexPath(root);
  let fail = true;
  const batches: WatchBatch[] = [];
  const watcher = await watchIndex({
    root,
    indexPath,
    debounceMs: 50,
    reindex: async () => {
      if (fail) {
        fail = false;
        throw new Error('disk on fire');
      }
      return indexRepository({ root, indexPath, vectors: false, chunker: await chunker });
    },
    onBatch: (b) => batches.push(b),
  });
  t.after(() => watcher.close());
  write(root, { 'src/a.ts': 'export const one = 1;\n' });
  while (batches.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(batches[0]?.error, 'disk on fire');
  write(root, { 'src/a.ts': 'export const two = 2;\n' });
  while (batches.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(batches[1]?.error, undefined);
  assert.equal(batches[1]?.summary?.filesNew, 3);
});
