import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import {
  CodesiftError,
  type IndexJobStatus,
  type IndexJobs,
  queuedJobStatus,
} from '@codesift/core';
import { FakeEngine } from './testing/fake-engine.js';
import { openLocalWorkspace } from './workspace.js';

/** Index jobs the test drives by hand: `finish` ends the running one. */
function manualJobs(): IndexJobs & { finish(state: 'succeeded' | 'failed'): void } {
  let job: IndexJobStatus | undefined;
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const w of waiters) w();
    waiters.clear();
  };
  return {
    async start() {
      job = { ...queuedJobStatus(`job-${Date.now()}`, '/repo'), state: 'running', phase: 'index' };
      return { ...job };
    },
    get: () => job,
    latest: () => job && { ...job },
    async *watch() {
      // Like the real runner: a change between two looks is never missed.
      let seen: IndexJobStatus | undefined;
      for (;;) {
        if (job !== seen) {
          seen = job;
          const s = { ...job! };
          yield s;
          if (s.state === 'succeeded' || s.state === 'failed') return;
          continue;
        }
        await new Promise<void>((r) => waiters.add(r));
      }
    },
    finish(state) {
      job = { ...job!, state, error: state === 'failed' ? 'disk full' : null };
      changed();
    },
  };
}

describe('LocalWorkspace', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'codesift-workspace-'));
  const indexPath = path.join(dir, '.codesift', 'index.db');
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('no index: searches fail with a hint that follows the job; clear waits for the job', async () => {
    const jobs = manualJobs();
    const opened: FakeEngine[] = [];
    const ws = await openLocalWorkspace({
      root: dir,
      indexPath,
      jobs,
      vectors: false,
      embedder: null,
      open: async () => {
        const e = new FakeEngine();
        opened.push(e);
        return e;
      },
    });
    assert.equal(ws.hasIndex(), false);
    await assert.rejects(ws.engine.search({ query: 'x' }), (err: CodesiftError) => {
      assert.equal(err.code, 'INDEX_NOT_FOUND');
      assert.match(err.hint ?? '', /call the index_codebase tool/);
      return true;
    });

    const { job, started } = await ws.startIndex();
    assert.equal(started, true);
    assert.equal((await ws.startIndex()).started, false, 'a second start joins nothing new');
    await assert.rejects(ws.engine.status(), /not indexed yet/);
    await assert.rejects(ws.engine.lookupSymbol('x'), (err: CodesiftError) =>
      /an index job is running/.test(err.hint ?? ''),
    );
    await assert.rejects(ws.clear(), (err: CodesiftError) => err.code === 'BUSY');

    // The job wrote the file; follow resolves once searches use it.
    mkdirSync(path.dirname(indexPath), { recursive: true });
    writeFileSync(indexPath, '');
    const followed = ws.follow(job.jobId);
    jobs.finish('succeeded');
    assert.equal((await followed).state, 'succeeded');
    assert.equal(ws.hasIndex(), true);
    assert.equal(opened.length, 1);
    assert.equal((await ws.engine.status()).root, '/repo');

    const removed = await ws.clear();
    assert.deepEqual(removed, [indexPath]);
    assert.equal(opened[0]!.closed, true, 'the engine was closed before its file went');
    assert.equal(existsSync(path.dirname(indexPath)), false);
    assert.equal(ws.hasIndex(), false);
    await assert.rejects(ws.engine.search({ query: 'x' }), /not indexed yet/);
    await ws.close();
  });

  test('the watch starts once the index exists, runs jobs through the queue, and stops on clear', async () => {
    const jobs = manualJobs();
    const opened: FakeEngine[] = [];
    const watches: {
      reindex: (files: string[] | null) => Promise<IndexJobStatus>;
      closed: boolean;
    }[] = [];
    const ws = await openLocalWorkspace({
      root: dir,
      indexPath,
      jobs,
      vectors: false,
      embedder: null,
      open: async () => {
        const e = new FakeEngine();
        opened.push(e);
        return e;
      },
      watch: async (reindex) => {
        const w = { reindex, closed: false };
        watches.push(w);
        return {
          close: async () => {
            w.closed = true;
          },
        };
      },
    });
    assert.equal(ws.watching(), false, 'nothing to keep fresh before an index exists');
    const { job } = await ws.startIndex();
    mkdirSync(path.dirname(indexPath), { recursive: true });
    writeFileSync(indexPath, '');
    const followed = ws.follow(job.jobId);
    jobs.finish('succeeded');
    await followed;
    for (let i = 0; i < 100 && !ws.watching(); i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(ws.watching(), true);
    assert.equal(watches.length, 1);

    // A change: one incremental job, and the open engine goes on serving (no reopen).
    const reindexed = watches[0]!.reindex(['src/a.ts']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await ws.latestJob())?.state, 'running');
    jobs.finish('succeeded');
    assert.equal((await reindexed).state, 'succeeded');
    assert.equal(opened.length, 1, 'an incremental job needs no new engine');
    assert.equal(watches.length, 1);

    await ws.clear();
    assert.equal(watches[0]!.closed, true, 'a cleared index is not rebuilt behind the user');
    assert.equal(ws.watching(), false);
    await ws.close();
  });

  test('a failed job leaves the workspace as it was', async () => {
    const jobs = manualJobs();
    const ws = await openLocalWorkspace({
      root: dir,
      indexPath,
      jobs,
      vectors: false,
      embedder: null,
      open: async () => assert.fail('nothing to open after a failed job'),
    });
    const { job } = await ws.startIndex();
    const followed = ws.follow(job.jobId);
    jobs.finish('failed');
    const end = await followed;
    assert.equal(end.state, 'failed');
    assert.equal(end.error, 'disk full');
    assert.equal(ws.hasIndex(), false);
    await assert.rejects(ws.engine.search({ query: 'x' }), CodesiftError);
    await ws.close();
  });
});
