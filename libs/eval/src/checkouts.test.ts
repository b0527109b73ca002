import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { commitInfo, ensureCheckout, ensureIndex, GitDirs, indexKey } from './checkouts.js';

describe('checkouts', () => {
  let work: string;
  let repoDir: string;
  const commits: string[] = [];
  const gitIn = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repoDir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    }).trim();

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-checkouts-'));
    repoDir = path.join(work, 'origin');
    mkdirSync(path.join(repoDir, 'pkg'), { recursive: true });
    gitIn('init', '-q');
    writeFileSync(
      path.join(repoDir, 'pkg', 'graph.py'),
      'def add_edge(a, b):\n    return (a, b)\n',
    );
    writeFileSync(path.join(repoDir, 'pkg', 'nodes.py'), 'def add_node(n):\n    return n\n');
    gitIn('add', '.');
    gitIn('commit', '-q', '-m', 'one', '--date', '2020-01-01T00:00:00Z');
    commits.push(gitIn('rev-parse', 'HEAD'));
    writeFileSync(
      path.join(repoDir, 'pkg', 'graph.py'),
      'def remove_edge(a, b):\n    return None\n',
    );
    gitIn('commit', '-q', '-am', 'two');
    commits.push(gitIn('rev-parse', 'HEAD'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('--git-dir pairs and a mirrors directory resolve git directories', () => {
    const dirs = GitDirs.fromArgs([`acme/graph=${repoDir}`]);
    assert.equal(dirs.resolve('acme/graph'), path.join(repoDir, '.git'));
    const mirrors = path.join(work, 'mirrors');
    mkdirSync(path.join(mirrors, 'acme+other'), { recursive: true });
    execFileSync('git', [
      'clone',
      '-q',
      '--bare',
      repoDir,
      path.join(mirrors, 'acme+other', 'repo'),
    ]);
    assert.equal(
      GitDirs.fromArgs([], mirrors).resolve('acme/other'),
      path.join(mirrors, 'acme+other', 'repo'),
    );
    assert.throws(() => dirs.resolve('acme/missing'), /no git directory for acme\/missing/);
    assert.throws(() => GitDirs.fromArgs(['nonsense']), /--git-dir takes owner\/name=<path>/);
  });

  test('a missing commit is a clear error', () => {
    assert.throws(
      () => commitInfo(path.join(repoDir, '.git'), 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef'),
      /commit deadbeef\w* is not in/,
    );
  });

  test('checks out with git archive, indexes once, reuses, and seeds the next commit', async () => {
    const gitDir = GitDirs.fromArgs([`acme/graph=${repoDir}`]).resolve('acme/graph');
    const cache = path.join(work, 'cache');
    const [c1, c2] = commits as [string, string];

    const first = await ensureCheckout(cache, 'acme/graph', c1, gitDir);
    assert.equal(first.created, true);
    assert.match(readFileSync(path.join(first.dir, 'pkg', 'graph.py'), 'utf8'), /add_edge/);
    assert.equal(existsSync(path.join(first.dir, '.git')), false, 'a tree, not a clone');
    assert.equal((await ensureCheckout(cache, 'acme/graph', c1, gitDir)).created, false);

    const opts = (commit: string, checkout: string) => ({
      cacheDir: cache,
      repo: 'acme/graph',
      commit,
      commitTime: commitInfo(gitDir, commit).time,
      checkout,
      embedder: undefined,
    });
    const built = await ensureIndex(opts(c1, first.dir));
    assert.equal(built.status, 'built');
    assert.equal(built.filesIndexed, 2);
    assert.ok(built.indexPath.includes(indexKey(null)));
    assert.ok(!built.indexPath.startsWith(first.dir), 'the index lives outside the checkout');

    const again = await ensureIndex(opts(c1, first.dir));
    assert.equal(again.status, 'cached');
    assert.equal(again.indexPath, built.indexPath);

    const second = await ensureCheckout(cache, 'acme/graph', c2, gitDir);
    assert.match(readFileSync(path.join(second.dir, 'pkg', 'graph.py'), 'utf8'), /remove_edge/);
    const seeded = await ensureIndex(opts(c2, second.dir));
    assert.equal(seeded.status, 'seeded');
    assert.equal(seeded.seededFrom, c1);
    assert.equal(seeded.filesIndexed, 1, 'only the file that changed between commits');
    assert.notEqual(seeded.indexPath, built.indexPath);
  });
});
