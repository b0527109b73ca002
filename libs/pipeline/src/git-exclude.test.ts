// .codesift/ kept out of `git status` by a real git: in a repository, in a
// subdirectory of one, in a linked worktree (its exclude is the main
// repository's), and left alone outside a repository.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { gitIn, makeTree } from '@codesift/scanner/testing';
import { excludeFromGit } from './git-exclude.js';
import { indexRepository } from './local-runner.js';

const git = gitIn;
const untracked = (cwd: string) =>
  git(cwd, 'status', '--porcelain', '--untracked-files=all')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.slice(3));

describe('a .codesift index inside a git repository', () => {
  test('is written to .git/info/exclude once, and git status no longer shows it', async (t) => {
    const repo = makeTree(t, { 'src/a.ts': 'export const a = 1;\n', 'sub/b.py': 'b = 1\n' });
    git(repo, 'init', '-q');
    await indexRepository({ root: repo, vectors: false });
    await indexRepository({ root: path.join(repo, 'sub'), vectors: false });
    assert.deepEqual(untracked(repo).sort(), ['src/a.ts', 'sub/b.py']);
    const exclude = readFileSync(path.join(repo, '.git', 'info', 'exclude'), 'utf8');
    await indexRepository({ root: repo, vectors: false });
    const lines = readFileSync(path.join(repo, '.git', 'info', 'exclude'), 'utf8').split('\n');
    assert.equal(lines.filter((l) => l === '/.codesift/').length, 1, 'added once');
    assert.equal(lines.filter((l) => l === '/sub/.codesift/').length, 1);
    assert.ok(lines.join('\n').startsWith(exclude.split('\n')[0]!), 'git own lines kept');
  });

  test('a linked worktree writes the shared exclude; outside a repository nothing is written', (t) => {
    const main = makeTree(t, { 'a.ts': 'export const a = 1;\n' });
    git(main, 'init', '-q');
    git(main, 'add', '.');
    git(main, 'commit', '-q', '-m', 'a');
    const linked = `${main}-linked`;
    t.after(() => execFileSync('rm', ['-rf', linked]));
    git(main, 'worktree', 'add', '-q', linked);
    const r = excludeFromGit(path.join(linked, '.codesift'));
    assert.equal(r?.file, path.join(main, '.git', 'info', 'exclude'));
    assert.equal(r?.added, true);
    writeFileSync(path.join(linked, '.codesift-probe'), '');
    mkdirSync(path.join(linked, '.codesift'));
    writeFileSync(path.join(linked, '.codesift', 'index.db'), '');
    assert.deepEqual(untracked(linked), ['.codesift-probe']);
    const plain = path.join(tmpdir(), `codesift-no-git-${process.pid}`);
    assert.equal(excludeFromGit(path.join(plain, '.codesift')), null);
    assert.equal(excludeFromGit(path.join(main, 'elsewhere')), null, 'only .codesift');
  });
});
