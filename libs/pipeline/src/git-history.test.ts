// The repository's history read by a real git into a real index: from the
// root's own repository (and only under a subdirectory root), from a git
// directory at a revision, not again at the same commit, and not at all
// outside a repository.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { commitAll, gitIn, makeTree } from '@codesift/scanner/testing';
import { openSqliteIndex } from '@codesift/stores';
import { MAX_PATHS_PER_COMMIT, parseGitLog, readHistory, refreshHistory } from './git-history.js';
import { indexRepository } from './local-runner.js';

const git = gitIn;

describe('git history', () => {
  test('indexing a repository stores its commits; the same HEAD reads nothing again', async (t) => {
    const repo = makeTree(t, {
      'src/route.ts': 'export function route() {}\n',
      'src/parse.ts': 'export function parse() {}\n',
      'sub/b.py': 'b = 1\n',
    });
    git(repo, 'init', '-q');
    commitAll(repo, 'Initial import');
    writeFileSync(path.join(repo, 'src/route.ts'), 'export function route() { return 1; }\n');
    writeFileSync(path.join(repo, 'sub/b.py'), 'b = 2\n');
    commitAll(repo, 'Route unsupported methods to the not-found handler\n\nFixes #12.');
    writeFileSync(path.join(repo, 'src/parse.ts'), 'export function parse() { return 2; }\n');
    const head = commitAll(repo, 'Parse headers lazily');

    const first = await indexRepository({ root: repo, vectors: false });
    assert.equal(first.historyCommits, 3);
    const again = await indexRepository({ root: repo, vectors: false });
    assert.equal(again.historyCommits, undefined, 'HEAD did not move: nothing read');

    const index = openSqliteIndex(first.indexPath, { readonly: true });
    try {
      assert.equal(await index.history.head(), head);
      const found = await index.history.similar(['unsupported', 'handler'], 5);
      assert.equal(found.length, 1);
      assert.deepEqual(
        found[0]!.files.map((f) => f.path),
        ['src/route.ts', 'sub/b.py'],
      );
      assert.deepEqual(
        found[0]!.files.map((f) => f.commits),
        [2, 2],
        'each was changed by two of the three commits',
      );
      assert.match(found[0]!.sha, /^[0-9a-f]{40}$/);
    } finally {
      index.close();
    }

    // A subdirectory root: its own changes only, paths relative to it.
    const sub = await indexRepository({ root: path.join(repo, 'sub'), vectors: false });
    const subIndex = openSqliteIndex(sub.indexPath, { readonly: true });
    try {
      const found = await subIndex.history.similar(['unsupported', 'handler', 'parse'], 5);
      assert.deepEqual(
        found.map((m) => m.files.map((f) => f.path)),
        [['b.py']],
      );
    } finally {
      subIndex.close();
    }
  });

  test('history: false and a tree outside any repository store none', async (t) => {
    const plain = makeTree(t, { 'a.ts': 'export const a = 1;\n' });
    const summary = await indexRepository({ root: plain, vectors: false });
    assert.equal(summary.historyCommits, undefined);
    const repo = makeTree(t, { 'a.ts': 'export const a = 1;\n' });
    git(repo, 'init', '-q');
    commitAll(repo, 'Add a');
    const off = await indexRepository({ root: repo, vectors: false, history: false });
    assert.equal(off.historyCommits, undefined);
    const index = openSqliteIndex(off.indexPath, { readonly: true });
    try {
      assert.equal(await index.history.head(), null);
    } finally {
      index.close();
    }
  });

  test('from a git directory at a revision: the history reachable from it, no later commit', async (t) => {
    const repo = makeTree(t, { 'a.ts': 'export const a = 1;\n' });
    git(repo, 'init', '-q');
    const old = commitAll(repo, 'Add the answer');
    writeFileSync(path.join(repo, 'a.ts'), 'export const a = 2;\n');
    commitAll(repo, 'Later change to the answer');
    const checkout = makeTree(t, { 'a.ts': 'export const a = 1;\n' });
    const index = openSqliteIndex(path.join(checkout, '.codesift', 'index.db'));
    try {
      await index.manifest.put([
        {
          path: 'a.ts',
          hash: 'a'.repeat(64),
          size: 1,
          mtimeMs: 1,
          language: 'typescript',
          chunkCount: 0,
          symbolCount: 0,
          indexedAt: 1,
        },
      ]);
      const source = { gitDir: path.join(repo, '.git'), rev: old };
      assert.equal(await refreshHistory(index, source), 1);
      assert.equal(await refreshHistory(index, source), null);
      assert.deepEqual(
        (await index.history.similar(['answer'], 5)).map((m) => m.sha),
        [old],
      );
      assert.equal(await refreshHistory(index, { ...source, rev: 'no-such-rev' }), null);
    } finally {
      index.close();
    }
  });

  test('parseGitLog: messages kept whole, sweeping commits and empty ones left out', async (t) => {
    const many = Array.from({ length: MAX_PATHS_PER_COMMIT + 1 }, (_, i) => `f${i}.ts`).join('\n');
    const out =
      `\x01aaa 10\x02Subject\n\nBody line\x03\n\nsrc/a.ts\nsrc/b.ts\n` +
      `\x01bbb 20\x02Reformat everything\x03\n\n${many}\n` +
      `\x01ccc 30\x02Empty commit\x03\n`;
    assert.deepEqual(parseGitLog(out), [
      { sha: 'aaa', time: 10, message: 'Subject\n\nBody line', paths: ['src/a.ts', 'src/b.ts'] },
    ]);
    const plain = makeTree(t, { 'a.ts': '' });
    assert.equal(await readHistory({ root: plain }, 'HEAD'), null, 'not a repository');
  });
});
