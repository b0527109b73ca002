import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { indexRepository } from '@codesift/pipeline';
import { openLocalEngine, type SearchEngine } from '@codesift/search';
import { localEngineFactory } from './local-factory.js';
import { type EnginePool, openEnginePool } from './pool.js';
import type { EngineFactory } from './protocol.js';

const testFactory = (options: { failOpen?: boolean } = {}): EngineFactory => ({
  module: new URL('./testing/scripted-engine.js', import.meta.url).href,
  exportName: 'openTestEngine',
  options,
});

const noPrimary: SearchEngine = {
  search: () => Promise.reject(new Error('primary must not search')),
  lookupSymbol: async () => [],
  vocabulary: async () => [],
  status: () => Promise.reject(new Error('unused')),
  getSnippet: () => Promise.reject(new Error('unused')),
  close: async () => undefined,
};

const threadOf = (r: { timings: Record<string, number> }) => r.timings.thread;

describe('engine pool over a real local index', () => {
  let dir: string;
  let indexPath: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-pool-'));
    const root = path.join(dir, 'repo');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    writeFileSync(
      path.join(root, 'src', 'graph.ts'),
      'export class Graph {\n  addEdge(from: string, to: string): void {\n    this.edges.push([from, to]);\n  }\n}\n',
    );
    writeFileSync(
      path.join(root, 'src', 'retry.py'),
      'def retry_request(call, attempts=3):\n    """Try the call again after waiting."""\n    return call()\n',
    );
    writeFileSync(path.join(root, 'README.md'), '# Demo\n\nGraphs and retries.\n');
    indexPath = path.join(dir, 'index.db');
    await indexRepository({ root, indexPath, vectors: false });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('answers exactly what the engine on the main thread answers', async () => {
    const primary = await openLocalEngine({ indexPath, embedder: null });
    const pool = await openEnginePool({
      factory: localEngineFactory({ indexPath, embedder: null }),
      threads: 2,
      primary,
    });
    try {
      for (const query of ['addEdge', 'retry the request', 'graph edges', 'lang:python call']) {
        const [direct, pooled] = await Promise.all([
          primary.search({ query, explain: true }),
          pool.search({ query, explain: true }),
        ]);
        assert.ok(direct.results.length > 0, query);
        assert.deepEqual(
          pooled.results.map((r) => [r.path, r.startLine, r.score, r.snippet]),
          direct.results.map((r) => [r.path, r.startLine, r.score, r.snippet]),
          query,
        );
      }
      // Everything but search is the primary's.
      assert.deepEqual(await pool.status(), await primary.status());
      assert.deepEqual(await pool.lookupSymbol('Graph'), await primary.lookupSymbol('Graph'));
    } finally {
      await pool.close();
      await primary.close();
    }
  });

  test('an engine error keeps its code and hint across the thread boundary', async () => {
    const primary = await openLocalEngine({ indexPath, embedder: null });
    const pool = await openEnginePool({
      factory: localEngineFactory({ indexPath, embedder: null }),
      threads: 1,
      primary,
    });
    try {
      await assert.rejects(
        pool.search({ query: 'x', fusion: 'bogus' as 'rrf' }),
        (e: unknown) =>
          e instanceof CodesiftError &&
          e.code === 'INVALID_ARGUMENT' &&
          /unknown fusion/.test(e.message) &&
          /adaptive/.test(e.hint ?? ''),
      );
    } finally {
      await pool.close();
      await primary.close();
    }
  });

  test('a worker that cannot open its index fails the start with the engine’s error', async () => {
    await assert.rejects(
      openEnginePool({
        factory: localEngineFactory({ indexPath: path.join(dir, 'missing.db') }),
        threads: 2,
        primary: noPrimary,
      }),
      (e: unknown) => e instanceof CodesiftError && e.code === 'INDEX_NOT_FOUND',
    );
  });
});

describe('engine pool mechanics (scripted engine in real worker threads)', () => {
  let pool: EnginePool;
  before(async () => {
    pool = await openEnginePool({ factory: testFactory(), threads: 2, primary: noPrimary });
  });
  after(() => pool.close());

  test('concurrent searches spread over the workers', async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => pool.search({ query: `sleep ${20 + i}` })),
    );
    const threads = new Set(responses.map(threadOf));
    assert.equal(threads.size, 2, `answered by threads ${[...threads]}`);
    const { served } = pool.stats();
    assert.equal(served.length, 2);
    assert.ok(
      served.every((n) => n >= 3),
      `each worker took a share: ${served}`,
    );
  });

  test('aborting the caller’s signal cancels the search in the worker', async () => {
    const abort = new AbortController();
    const pending = pool.search({ query: 'wait', signal: abort.signal });
    setTimeout(() => abort.abort(), 20);
    await assert.rejects(pending, (e: unknown) => (e as Error).name === 'AbortError');
    // An already aborted signal never reaches a worker.
    await assert.rejects(
      pool.search({ query: 'a', signal: AbortSignal.abort() }),
      (e: unknown) => (e as Error).name === 'AbortError',
    );
  });

  test('an engine error crosses with its code', async () => {
    await assert.rejects(
      pool.search({ query: 'bad' }),
      (e: unknown) => e instanceof CodesiftError && e.code === 'INVALID_ARGUMENT',
    );
  });

  test('a crashed worker fails only its own search and is replaced', async () => {
    const before = new Set(
      (await Promise.all([pool.search({ query: 'a' }), pool.search({ query: 'b' })])).map(threadOf),
    );
    await assert.rejects(
      pool.search({ query: 'crash' }),
      (e: unknown) =>
        e instanceof CodesiftError && e.code === 'INTERNAL' && /exited/.test(e.message),
    );
    const after = await Promise.all(
      Array.from({ length: 6 }, (_, i) => pool.search({ query: `sleep ${10 + i}` })),
    );
    assert.ok(after.every((r) => r.query.startsWith('sleep')));
    // Back to two workers, one of them new (starting one takes a while on a busy machine).
    for (let i = 0; i < 200 && pool.stats().served.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const threads = new Set(
      (
        await Promise.all(
          Array.from({ length: 6 }, (_, i) => pool.search({ query: `sleep ${10 + i}` })),
        )
      ).map(threadOf),
    );
    assert.equal(threads.size, 2);
    assert.ok(
      [...threads].some((t) => !before.has(t)),
      'a new thread answers',
    );
  });

  test('close lets searches in flight finish, then refuses new ones', async () => {
    const own = await openEnginePool({ factory: testFactory(), threads: 1, primary: noPrimary });
    const inFlight = own.search({ query: 'sleep 80' });
    const closed = own.close();
    const r = await inFlight;
    assert.equal(r.query, 'sleep 80');
    await closed;
    await assert.rejects(own.search({ query: 'a' }), /closed/);
  });

  test('threads must be at least 1, and a failing open rejects the start', async () => {
    await assert.rejects(
      openEnginePool({ factory: testFactory(), threads: 0, primary: noPrimary }),
      /at least 1/,
    );
    await assert.rejects(
      openEnginePool({ factory: testFactory({ failOpen: true }), threads: 2, primary: noPrimary }),
      (e: unknown) =>
        e instanceof CodesiftError && e.code === 'INDEX_NOT_FOUND' && e.hint === 'index first',
    );
  });
});

test('sizing: one thread per core up to 4, none on one core; models share the cores', async () => {
  const { defaultSearchThreads, workerEnv } = await import('./local-pool.js');
  assert.deepEqual(
    [1, 2, 3, 8].map((c) => defaultSearchThreads(c)),
    [0, 2, 3, 4],
  );
  assert.equal(workerEnv({}, 2, 2).CODESIFT_EMBED_THREADS, '1');
  assert.equal(workerEnv({}, 4, 16).CODESIFT_EMBED_THREADS, '4');
  assert.equal(workerEnv({ CODESIFT_EMBED_THREADS: '3' }, 4, 16).CODESIFT_EMBED_THREADS, '3');
});
