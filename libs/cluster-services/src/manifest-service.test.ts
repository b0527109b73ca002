// The manifest service over a real nats-server, from a real SQLite
// manifest: a large manifest arrives whole, in pages, in path order.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { requestService } from '@codesift/bus';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import type { FileRecord } from '@codesift/core';
import { openSqliteIndex, type SqliteLocalIndex } from '@codesift/stores';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { fetchManifest, serveManifest } from './manifest-service.js';

function record(i: number): FileRecord {
  // Paths of varied length and depth, some non-ASCII.
  const dir = `pkg${i % 97}/src/${i % 3 === 0 ? 'deep/er/' : ''}`;
  return {
    path: `${dir}file-${i}${i % 11 === 0 ? '-é' : ''}.ts`,
    hash: `h${i.toString(16).padStart(63, '0')}`,
    size: 100 + i,
    mtimeMs: 1_700_000_000_000 + i + 0.5,
    language: i % 2 ? 'typescript' : 'python',
    chunkCount: i % 7,
    symbolCount: i % 5,
    indexedAt: 1_700_000_100_000 + i,
  };
}

describe('manifest service', () => {
  let dir: string;
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let index: SqliteLocalIndex;
  const N = 100_000;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-manifest-'));
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    index = openSqliteIndex(path.join(dir, 'index.db'), { create: true });
    await index.manifest.put(Array.from({ length: N }, (_, i) => record(i)));
  });
  after(async () => {
    index?.close();
    await nc?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`${N} records arrive whole, paged, and the root is recorded`, async (t) => {
    let pages = 0;
    const service = serveManifest(nc, {
      all: () => index.manifest.all(),
      setRoot: (root) => index.setRoot(root),
    });
    // Count pages through the service's own subject.
    const counter = nc.subscribe('codesift.svc.manifest.page', {
      callback: () => {
        pages++;
      },
    });
    try {
      const started = performance.now();
      const got = await fetchManifest(nc, { root: '/checkouts/repo' });
      const ms = performance.now() - started;
      const want = await index.manifest.all();
      assert.equal(got.size, N);
      assert.deepEqual(got, want);
      assert.ok(pages > 10, `paged (${pages} pages)`);
      assert.equal(index.meta().root, '/checkouts/repo');
      t.diagnostic(`${N} manifest records in ${pages} pages, ${ms.toFixed(0)} ms`);
    } finally {
      counter.unsubscribe();
      await service.stop();
    }
  });

  test('pages come in path order, respect the limit, and survive a lost snapshot', async () => {
    const records = [record(1), record(2), record(3), record(4), record(5)];
    const byPath = new Map(records.map((r) => [r.path, r]));
    const service = serveManifest(nc, { all: () => new Map(byPath) }, { snapshotTtlMs: 60_000 });
    try {
      const sorted = [...byPath.keys()].sort();
      const first = await requestService(nc, 'manifestPage', { limit: 2 });
      assert.deepEqual(
        first.files.map((f) => f.path),
        sorted.slice(0, 2),
      );
      assert.equal(first.done, false);
      assert.equal(first.total, 5n);
      // A page of a snapshot the server no longer holds (another replica, or
      // expired) continues after the last path from a fresh snapshot, which
      // sees the change made meanwhile.
      byPath.delete(sorted[2]!);
      const next = await requestService(nc, 'manifestPage', {
        snapshot: 'gone',
        after: first.files[1]!.path,
        limit: 10,
      });
      assert.deepEqual(
        next.files.map((f) => f.path),
        sorted.slice(3),
      );
      assert.equal(next.done, true);
      await assert.rejects(requestService(nc, 'manifestPage', { limit: 1_000_000 }), {
        code: 'INVALID_ARGUMENT',
      });
      // An empty manifest is one empty, final page.
      byPath.clear();
      assert.equal((await fetchManifest(nc)).size, 0);
    } finally {
      await service.stop();
    }
  });

  test('a repository lists its own files only, records its directory, and must fit the index', async () => {
    const repos = openSqliteIndex(path.join(dir, 'repos.db'), { create: true });
    const service = serveManifest(nc, {
      all: (prefix) => repos.manifest.all(prefix),
      setRoot: (root, repository) => repos.setRoot(root, repository),
    });
    try {
      // `api` and `api-v2` share the characters but not the prefix `api/`.
      const files = ['api/a.ts', 'api/src/b.ts', 'api-v2/a.ts', 'web/a.ts'];
      await repos.manifest.put(files.map((p, i) => ({ ...record(i), path: p })));
      const api = await fetchManifest(nc, {
        root: '/checkouts/api',
        repository: 'api',
        pageSize: 1,
      });
      assert.deepEqual([...api.keys()].sort(), ['api/a.ts', 'api/src/b.ts']);
      await fetchManifest(nc, { root: '/checkouts/web', repository: 'web' });
      assert.deepEqual(repos.meta().repositories, { api: '/checkouts/api', web: '/checkouts/web' });
      assert.equal(repos.meta().root, null);
      // The whole index, without recording anything, is still listed for a reader.
      assert.equal((await fetchManifest(nc)).size, 4);
      await assert.rejects(fetchManifest(nc, { root: '/checkouts/other' }), {
        code: 'INVALID_ARGUMENT',
        message: /holds repositories \(api, web\), so an index job must name the repository/,
      });
      await assert.rejects(fetchManifest(nc, { root: '/x', repository: '../etc' }), {
        code: 'INVALID_ARGUMENT',
        message: /invalid repository name/,
      });
    } finally {
      await service.stop();
      repos.close();
    }
  });

  test('no writer answering: a clear error', async () => {
    await assert.rejects(fetchManifest(nc), /no writer service answers/);
  });
});
