import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connectCodesift } from '@codesift/grpc';
import Database from 'better-sqlite3';
import { collect, firstLine, type RunResult, runCli, startCli } from '../support/cli.js';
import { syntheticRepo, writeTree } from '../support/tree.js';

/**
 * Integrity of the local index under real processes: a SIGKILLed rebuild,
 * two indexers at once, a watch behind another indexer's lock, and a page
 * overwritten with garbage.
 */
const FILES = 400;

/** Resolves once the child's stderr matches `re`; rejects when it ended first or after 60 s. */
function stderrMatch(child: ChildProcess, re: RegExp): Promise<void> {
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      stderr += d;
      if (re.test(stderr)) resolve();
    });
    child.once('close', () => reject(new Error(`the run ended before printing ${re}:\n${stderr}`)));
    setTimeout(() => reject(new Error(`no ${re} within 60 s:\n${stderr}`)), 60_000).unref();
  });
}

async function searchPaths(root: string, query: string): Promise<string[]> {
  const r = await runCli(['search', '--json', '--limit', '10', query], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { results: { path: string; startLine: number }[] }).results.map(
    (h) => `${h.path}:${h.startLine}`,
  );
}

describe('index integrity (CLI, end to end)', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-integrity-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('a rebuild killed with SIGKILL leaves the old index answering as before, and a server follows a finished one', async () => {
    const root = path.join(work, 'rebuild');
    syntheticRepo(root, FILES);
    const first = await runCli(['index', root, '--no-vectors', '--json', '-q']);
    assert.equal(first.code, 0, first.stderr);
    const indexPath = path.join(root, '.codesift', 'index.db');
    const before = await searchPaths(root, 'total of all orders for a tenant');
    assert.ok(before.length > 0);

    // A server holding the old file open while the rebuild runs and is swapped in.
    const server = startCli(
      ['serve', '--port', '0', '--json', '--threads', '0', '--no-watch', '--insecure-no-auth'],
      { cwd: root },
    );
    const served = collect(server, 300_000);
    try {
      const listening = JSON.parse(await firstLine(server, 60_000)) as { address: string };
      const client = connectCodesift(listening.address);
      try {
        const rebuild = startCli(['index', root, '--no-vectors', '--rebuild']);
        // Killed mid-way: once its write-ahead log holds a few committed batches (the
        // whole rebuild writes ~3 MB there), whatever the machine's speed.
        await stderrMatch(rebuild, /indexing \d+ of \d+ files/);
        const wal = `${indexPath}.rebuild-wal`;
        for (let i = 0; i < 2000 && rebuild.exitCode === null; i++) {
          if (existsSync(wal) && statSync(wal).size > 600_000) break;
          await new Promise((r) => setTimeout(r, 5));
        }
        rebuild.kill('SIGKILL');
        await new Promise((r) => rebuild.once('close', r));
        assert.equal(
          rebuild.signalCode,
          'SIGKILL',
          'the rebuild finished before it could be killed',
        );

        // The old index: same answers, intact, and the next run finds nothing to do.
        assert.deepEqual(await searchPaths(root, 'total of all orders for a tenant'), before);
        const check = await runCli(['index', '--check', root]);
        assert.equal(check.code, 0, check.stdout + check.stderr);
        assert.match(check.stdout, new RegExp(`intact \\(${FILES} files`));
        const again = await runCli(['index', root, '--no-vectors', '--json', '-q']);
        assert.equal(again.code, 0, again.stderr);
        const s = JSON.parse(again.stdout);
        assert.equal(
          s.filesUnchanged,
          FILES,
          'the killed rebuild touched nothing of the old index',
        );
        assert.equal(existsSync(`${indexPath}.rebuild`), false, 'its leftover file is removed');
        assert.equal(existsSync(`${indexPath}.lock`), false, 'its stale lock was taken over');

        // A rebuild that completes is a new file; the server reopens it.
        const inode = statSync(indexPath).ino;
        writeFileSync(
          path.join(root, 'src', 'zz_added.ts'),
          'export function quetzalcoatlFeather(): number {\n  return 7;\n}\n',
        );
        const done = await runCli(['index', root, '--no-vectors', '--rebuild', '--json', '-q']);
        assert.equal(done.code, 0, done.stderr);
        assert.notEqual(statSync(indexPath).ino, inode, 'the rebuild swapped in a new file');
        let found = '';
        for (let i = 0; i < 100 && !found; i++) {
          const res = await client.search.search({ query: 'quetzalcoatlFeather', limit: 1 });
          found = res.results[0]?.path ?? '';
          if (!found) await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(found, 'src/zz_added.ts', 'the server searches the rebuilt index');
      } finally {
        client.close();
      }
    } finally {
      server.kill('SIGTERM');
      await served;
    }
  });

  test('a second indexer waits for the first (or refuses with --no-wait); the final index is complete', async () => {
    const root = path.join(work, 'concurrent');
    syntheticRepo(root, FILES);
    const a = startCli(['index', root, '--no-vectors', '--json']);
    const aDone = collect(a, 300_000);
    await stderrMatch(a, /indexing \d+ of \d+ files/);
    // The first indexer is paused while the other two start, so on a fast machine it
    // cannot finish (and release the lock) before they look at it.
    a.kill('SIGSTOP');
    let bDone: Promise<RunResult> | undefined;
    try {
      const refused = await runCli(['index', root, '--no-vectors', '--no-wait', '--json', '-q']);
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stderr, /is being written by pid \d+ on /);
      assert.match(refused.stderr, /hint:/);
      const waiter = startCli(['index', root, '--no-vectors', '--json', '-q']);
      bDone = collect(waiter, 300_000);
      await stderrMatch(waiter, new RegExp(`waiting: .* being written by pid ${a.pid} `));
    } finally {
      a.kill('SIGCONT');
    }
    const ra = await aDone;
    assert.equal(ra.code, 0, ra.stderr);
    assert.ok(bDone);
    const b = await bDone;
    assert.equal(b.code, 0, b.stderr);
    const sa = JSON.parse(ra.stdout);
    const sb = JSON.parse(b.stdout);
    assert.equal(sa.filesNew, FILES);
    assert.equal(sb.filesIndexed, 0, 'the second run found everything done');
    assert.equal(sb.totals.files, FILES);
    assert.equal(sb.totals.chunks, sa.totals.chunks);
    const check = await runCli(['index', '--check', root]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  test('the watch waits behind another indexer lock, then indexes', async () => {
    const root = path.join(work, 'watched');
    writeTree(root, { 'src/a.ts': 'export function waitedFor(): number {\n  return 1;\n}\n' });
    const lockFile = path.join(root, '.codesift', 'index.db.lock');
    mkdirSync(path.dirname(lockFile), { recursive: true });
    // Held by this (live) test process.
    writeFileSync(
      lockFile,
      JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() }),
    );
    const watch = startCli(['watch', root, '--no-vectors', '--json']);
    const ended = collect(watch, 120_000);
    try {
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        watch.stderr?.on('data', (d) => {
          stderr += d;
          if (stderr.includes(`waiting for the indexer pid ${process.pid}`)) resolve();
        });
        watch.once('close', () => reject(new Error(`watch ended:\n${stderr}`)));
      });
      assert.equal(existsSync(path.join(root, '.codesift', 'index.db')), false);
      rmSync(lockFile);
      const line = JSON.parse(await firstLine(watch, 60_000)) as { event: string };
      assert.equal(line.event, 'watching');
      const r = await runCli(['search', '--json', 'waitedFor'], { cwd: root });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).results[0].path, 'src/a.ts');
    } finally {
      watch.kill('SIGTERM');
      await ended;
    }
  });

  test('a page overwritten with garbage fails search and --check with the --rebuild hint', async () => {
    const root = path.join(work, 'garbage');
    syntheticRepo(root, 60);
    const indexed = await runCli(['index', root, '--no-vectors', '-q']);
    assert.equal(indexed.code, 0, indexed.stderr);
    assert.equal((await runCli(['search', 'orders'], { cwd: root })).code, 0);
    const indexPath = path.join(root, '.codesift', 'index.db');
    // A page no search reads (the index over symbols' paths, used by deletes):
    // without a check of every page, the search would answer as if nothing happened.
    const db = new Database(indexPath, { readonly: true });
    const { pageno, size } = db
      .prepare("SELECT pageno, pgsize AS size FROM dbstat WHERE name = 'symbols_path' LIMIT 1")
      .get() as { pageno: number; size: number };
    db.close();
    const fd = openSync(indexPath, 'r+');
    try {
      const garbage = Buffer.alloc(size);
      for (let i = 0; i < size; i++) garbage[i] = (i * 7919 + 13) & 0xff;
      writeSync(fd, garbage, 0, size, (pageno - 1) * size);
    } finally {
      closeSync(fd);
    }

    const search = await runCli(['search', 'orders'], { cwd: root });
    assert.equal(search.code, 1, search.stdout);
    assert.match(search.stderr, /corrupt/);
    assert.match(search.stderr, /hint:.*--rebuild/);
    assert.equal(search.stdout, '', 'no half answer');

    const check = await runCli(['index', '--check', root]);
    assert.equal(check.code, 1, check.stdout);
    assert.match(check.stderr, /failed its integrity check/);
    assert.match(check.stderr, /hint:.*--rebuild/);

    const fixed = await runCli(['index', root, '--no-vectors', '--rebuild', '-q']);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.equal((await runCli(['index', '--check', root])).code, 0);
    assert.equal((await runCli(['search', 'orders'], { cwd: root })).code, 0);
  });
});
