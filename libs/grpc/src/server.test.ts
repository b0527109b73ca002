import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { FusionMethod, JobState } from '@codesift/proto';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { type CodesiftClient, connectCodesift } from './client.js';
import type { IndexRootPolicy } from './index-service.js';
import { engineBudgetMs } from './search-service.js';
import { type CodesiftGrpcServer, createGrpcServer, SERVICE_NAMES } from './server.js';
import { type FakeEngine, fakeEngine } from './testing/fake-engine.js';
import { type FakeJobs, fakeJobs } from './testing/fake-jobs.js';

/** Asserts that `promise` rejects with gRPC status `code` and returns the error. */
async function rejectsWith(promise: Promise<unknown>, code: status): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    const e = err as ServiceError;
    assert.equal(e.code, code, `expected ${status[code]}, got ${status[e.code]}: ${e.details}`);
    return e;
  }
  assert.fail(`expected ${status[code]}, but the call succeeded`);
}

interface Harness {
  engine: FakeEngine;
  jobs: FakeJobs;
  server: CodesiftGrpcServer;
  address: string;
  client: CodesiftClient;
}

async function start(
  options: { token?: string; withJobs?: boolean; indexRoots?: IndexRootPolicy } = {},
): Promise<Harness> {
  const engine = fakeEngine();
  const jobs = fakeJobs();
  const server = createGrpcServer({
    engine,
    ...(options.withJobs === false ? {} : { jobs }),
    // The fake jobs' roots ('/repo') exist nowhere: passed on as a cluster's would be.
    indexRoots: options.indexRoots ?? { scanRoots: ['/'], mayBeElsewhere: true },
    ...(options.token ? { token: options.token } : {}),
  });
  const { address, port } = await server.listen('127.0.0.1', 0);
  assert.ok(port > 0);
  const client = connectCodesift(address, options.token ? { token: options.token } : {});
  return { engine, jobs, server, address, client };
}

async function stop(h: Harness): Promise<void> {
  h.client.close();
  await h.server.shutdown({ graceMs: 1000 });
}

describe('gRPC server over a real connection', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => stop(h));

  test('Search maps the request to the engine and the response back', async () => {
    const res = await h.client.search.search({
      query: 'addEdge',
      limit: 5,
      fusion: FusionMethod.RRF,
      collapseFiles: true,
      explain: true,
      filter: {
        languages: ['typescript'],
        includePaths: ['src/**'],
        excludePaths: ['**/*.test.ts'],
      },
    });
    const req = h.engine.requests.at(-1)!;
    assert.equal(req.query, 'addEdge');
    assert.equal(req.limit, 5);
    assert.equal(req.fusion, 'rrf');
    assert.equal(req.collapseFiles, true);
    assert.equal(req.explain, true);
    assert.deepEqual(req.filter, {
      languages: ['typescript'],
      include: ['src/**'],
      exclude: ['**/*.test.ts'],
    });
    assert.ok(req.signal instanceof AbortSignal);
    assert.equal(req.deadlineMs, undefined, 'no client deadline, none passed on');

    assert.equal(res.results.length, 2);
    const top = res.results[0]!;
    assert.equal(top.path, 'src/graph.ts');
    assert.deepEqual([top.range?.startLine, top.range?.endLine], [5, 9]);
    assert.equal(top.symbol, 'Graph.addEdge');
    assert.equal(top.kind, 'method');
    assert.equal(top.language, 'typescript');
    assert.equal(top.chunkId, 'chunk-1');
    assert.equal(top.snippet, 'addEdge(a: string, b: string): void {');
    assert.equal(top.score, 0.9);
    assert.equal(top.explain?.keyword, 3.5);
    assert.equal(top.explain?.keywordRank, 1);
    assert.equal(top.explain?.vectorRank, 0, 'absent rank reads 0');
    assert.equal(top.explain?.fused, 0.9);
    assert.equal(res.results[1]!.symbol, '');
    assert.equal(res.results[1]!.explain, undefined);
    assert.deepEqual(
      res.timings.map((t) => [t.stage, t.millis]),
      [
        ['analyze', 0.1],
        ['keyword', 1.5],
        ['total', 2],
      ],
    );
    assert.deepEqual(res.degraded, ['vector: no embedder']);
    assert.equal(res.totalChunks, 42n);
    assert.deepEqual(JSON.parse(res.planJson), {});
  });

  test('Search defaults: limit 10, engine fusion, no filter, no score parts', async () => {
    const res = await h.client.search.search({ query: 'graph' });
    const req = h.engine.requests.at(-1)!;
    assert.equal(req.limit, 10);
    assert.equal(req.fusion, undefined);
    assert.equal(req.filter, undefined);
    assert.equal(res.results[0]!.explain, undefined);
  });

  test('Search validates its request', async () => {
    const empty = await rejectsWith(
      h.client.search.search({ query: '   ' }),
      status.INVALID_ARGUMENT,
    );
    assert.match(empty.details, /query must not be empty/);
    const big = await rejectsWith(
      h.client.search.search({ query: 'x', limit: 101 }),
      status.INVALID_ARGUMENT,
    );
    assert.match(big.details, /limit must be at most 100/);
    await rejectsWith(
      h.client.search.search({ query: 'x', fusion: 42 as FusionMethod }),
      status.INVALID_ARGUMENT,
    );
    await rejectsWith(
      h.client.search.search({ query: 'x', filter: { languages: [''] } }),
      status.INVALID_ARGUMENT,
    );
    const tooLong = await rejectsWith(
      h.client.search.search({ query: 'x'.repeat(70_000) }),
      status.INVALID_ARGUMENT,
    );
    assert.match(tooLong.details, /at most 65536/);
    // Beyond the message size cap grpc-js refuses the request before it is parsed.
    await rejectsWith(
      h.client.search.search({ query: 'y'.repeat(2 * 1024 * 1024) }),
      status.RESOURCE_EXHAUSTED,
    );
  });

  test('a 20 KB query (a pasted stack trace) is accepted', async () => {
    const trace = Array.from(
      { length: 400 },
      (_, i) => `    at Graph.addEdge (src/graph.ts:${i}:7)`,
    ).join('\n');
    assert.ok(trace.length > 15_000);
    const res = await h.client.search.search({ query: trace.slice(0, 20_000) });
    assert.equal(res.results.length, 2);
    assert.equal(h.engine.requests.at(-1)!.query.length, Math.min(trace.length, 20_000));
  });

  test('engine errors map to status codes with their message', async () => {
    const cases: [unknown, status, RegExp][] = [
      [new CodesiftError('INVALID_ARGUMENT', 'bad glob [x'), status.INVALID_ARGUMENT, /bad glob/],
      [
        new CodesiftError('INDEX_NOT_FOUND', 'no index at /x', { hint: 'run codesift index' }),
        status.FAILED_PRECONDITION,
        /no index at \/x \(hint: run codesift index\)/,
      ],
      [new CodesiftError('PATH_OUTSIDE_ROOT', '../etc'), status.INVALID_ARGUMENT, /\.\.\/etc/],
      [new CodesiftError('TIMEOUT', 'too slow'), status.DEADLINE_EXCEEDED, /too slow/],
      [new CodesiftError('BUSY', '2 jobs waiting'), status.RESOURCE_EXHAUSTED, /2 jobs waiting/],
      [new CodesiftError('UNAVAILABLE', 'no symbols service'), status.UNAVAILABLE, /no symbols/],
      [new CodesiftError('INDEX_CORRUPT', 'broken'), status.DATA_LOSS, /broken/],
      [new CodesiftError('INTERNAL', 'oops'), status.INTERNAL, /oops/],
      [new Error('plain failure'), status.INTERNAL, /plain failure/],
    ];
    try {
      for (const [err, code, message] of cases) {
        h.engine.fail = err;
        const e = await rejectsWith(h.client.search.search({ query: 'x' }), code);
        assert.match(e.details, message);
        if (err instanceof CodesiftError) {
          assert.deepEqual(e.metadata.get('codesift-error-code'), [err.code]);
        }
      }
      h.engine.fail = new CodesiftError('INDEX_NOT_FOUND', 'gone');
      await rejectsWith(h.client.index.getIndexStatus({}), status.FAILED_PRECONDITION);
      await rejectsWith(h.client.symbols.lookupSymbol({ name: 'a' }), status.FAILED_PRECONDITION);
    } finally {
      h.engine.fail = undefined;
    }
  });

  test('SymbolService: LookupSymbol and GetVocabulary', async () => {
    const found = await h.client.symbols.lookupSymbol({ name: 'addEdge', kind: 'method' });
    assert.equal(found.symbols.length, 1);
    const s = found.symbols[0]!;
    assert.equal(s.qualifiedName, 'Graph.addEdge');
    assert.equal(s.parent, 'Graph');
    assert.equal(s.range?.startLine, 5);
    assert.equal(s.signature, 'addEdge(a: string, b: string): void');
    assert.equal(s.doc, 'Inserts an edge from a to b.');
    const none = await h.client.symbols.lookupSymbol({ name: 'addEdge', kind: 'class' });
    assert.equal(none.symbols.length, 0);
    await rejectsWith(h.client.symbols.lookupSymbol({ name: '' }), status.INVALID_ARGUMENT);
    await rejectsWith(
      h.client.symbols.lookupSymbol({ name: 'a', limit: 5000 }),
      status.INVALID_ARGUMENT,
    );
    const vocab = await h.client.symbols.getVocabulary({ prefix: 'add', limit: 5 });
    assert.deepEqual(
      vocab.entries.map((e) => [e.name, e.count]),
      [['addEdge', 3n]],
    );
    // With terms: the names relevant to a question, not the most common ones.
    const related = await h.client.symbols.getVocabulary({ terms: ['where are edges added'] });
    const names = related.entries.map((e) => [e.name, e.count]);
    assert.deepEqual(
      names[0],
      ['addEdge', 3n],
      JSON.stringify(names, (_, v) => String(v)),
    );
  });

  test('IndexService: status of the index, StartIndex, GetIndexStatus and a progress stream', async () => {
    const info = await h.client.index.getIndexStatus({});
    assert.equal(info.root, '/repo');
    assert.equal(info.chunks, 42n);
    assert.equal(info.vectors, 42n);
    assert.equal(info.embedder, 'test:hash-16');
    assert.equal(info.dimensions, 16);
    assert.equal(info.updatedAtMs, 1_700_000_000_000n);
    assert.equal(info.job, undefined);

    const { jobId } = await h.client.index.startIndex({ root: '/repo', noVectors: true });
    assert.ok(jobId);
    assert.deepEqual(h.jobs.starts.at(-1), { root: '/repo', rebuild: false, vectors: false });

    const seen: { state: JobState; filesDone: bigint; phase: string }[] = [];
    const watching = (async () => {
      for await (const m of h.client.index.watchIndexProgress({ jobId })) {
        const p = m.progress!;
        seen.push({ state: p.state, filesDone: p.filesDone, phase: p.phase });
        if (seen.length === 1) h.jobs.advance(jobId, { state: 'running', phase: 'index' });
        if (seen.length === 2) h.jobs.advance(jobId, { filesDone: 2, filesTotal: 3 });
        if (seen.length === 3) {
          h.jobs.advance(jobId, {
            state: 'succeeded',
            phase: 'done',
            filesDone: 3,
            skipped: { secret: 1, binary: 0 },
          });
        }
      }
    })();
    await watching;
    assert.deepEqual(
      seen.map((s) => s.state),
      [JobState.QUEUED, JobState.RUNNING, JobState.RUNNING, JobState.SUCCEEDED],
    );
    assert.deepEqual(
      seen.map((s) => s.filesDone),
      [0n, 0n, 2n, 3n],
    );

    const byJob = await h.client.index.getIndexStatus({ jobId });
    assert.equal(byJob.job?.state, JobState.SUCCEEDED);
    assert.deepEqual(
      byJob.job?.skipped.map((s) => [s.reason, s.count]),
      [['secret', 1n]],
    );
    assert.equal(byJob.chunks, 42n, 'index totals come along');
    const whole = await h.client.index.getIndexStatus({});
    assert.equal(whole.job?.jobId, jobId, 'the latest job rides along with the index status');

    // A late watcher gets the final state and the stream closes.
    const late = [];
    for await (const m of h.client.index.watchIndexProgress({ jobId: '' })) late.push(m);
    assert.equal(late.length, 1);
    assert.equal(late[0]!.progress?.state, JobState.SUCCEEDED);

    await rejectsWith(h.client.index.getIndexStatus({ jobId: 'nope' }), status.NOT_FOUND);
    const it = h.client.index.watchIndexProgress({ jobId: 'nope' })[Symbol.asyncIterator]();
    await rejectsWith(it.next(), status.NOT_FOUND);
  });

  test('a client that stops reading a progress stream cancels it on the server', async () => {
    const { jobId } = await h.client.index.startIndex({});
    for await (const m of h.client.index.watchIndexProgress({ jobId })) {
      assert.equal(m.progress?.state, JobState.QUEUED);
      break;
    }
    // The server's watcher must have stopped: advancing now reaches no listener that writes.
    h.jobs.advance(jobId, { state: 'failed', error: 'boom' });
    const end = await h.client.index.getIndexStatus({ jobId });
    assert.equal(end.job?.error, 'boom');
  });

  test('health: SERVING for the server and each service', async () => {
    assert.equal(await h.client.checkHealth(), 'SERVING');
    for (const name of SERVICE_NAMES) assert.equal(await h.client.checkHealth(name), 'SERVING');
    assert.deepEqual(SERVICE_NAMES, [
      'codesift.v1.SearchService',
      'codesift.v1.SymbolService',
      'codesift.v1.IndexService',
    ]);
    await rejectsWith(h.client.checkHealth('no.such.Service'), status.NOT_FOUND);
  });
});

describe('deadlines and cancellation', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => stop(h));

  test('a 200 ms client deadline ends a hanging search quickly and aborts the engine', async () => {
    h.engine.hang = true;
    try {
      const t0 = performance.now();
      await rejectsWith(
        h.client.search.search({ query: 'slow' }, { deadlineMs: 200 }),
        status.DEADLINE_EXCEEDED,
      );
      const elapsed = performance.now() - t0;
      assert.ok(elapsed < 1500, `took ${elapsed} ms`);
      const reason = (await h.engine.aborted) as Error;
      assert.ok(reason instanceof Error);
      const req = h.engine.requests.at(-1)!;
      assert.ok(req.signal?.aborted, 'the engine saw the abort');
      // The engine gets the remaining time less a margin to send a degraded answer in.
      assert.ok(
        req.deadlineMs !== undefined && req.deadlineMs >= 100 && req.deadlineMs <= 180,
        `deadlineMs ${req.deadlineMs}`,
      );
    } finally {
      h.engine.hang = false;
    }
  });

  test('an engine that runs out of time answers degraded within the deadline, not an error', async () => {
    h.engine.slowSide = true;
    try {
      const res = await h.client.search.search({ query: 'slow side' }, { deadlineMs: 1000 });
      assert.deepEqual(res.degraded, ['vector: timeout']);
      assert.equal(res.results.length, 2);
    } finally {
      h.engine.slowSide = false;
    }
  });

  test('engineBudgetMs leaves a margin of 10%, at most 50 ms', () => {
    assert.equal(engineBudgetMs(200), 180);
    assert.equal(engineBudgetMs(5000), 4950);
    assert.equal(engineBudgetMs(0), 1);
  });

  test('a client cancel aborts the engine', async () => {
    h.engine.hang = true;
    try {
      const controller = new AbortController();
      const call = h.client.search.search({ query: 'cancel me' }, { signal: controller.signal });
      const before = h.engine.requests.length;
      while (h.engine.requests.length === before) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      await rejectsWith(call, status.CANCELLED);
      const req = h.engine.requests.at(-1)!;
      for (let i = 0; i < 100 && !req.signal?.aborted; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok(req.signal?.aborted);
    } finally {
      h.engine.hang = false;
    }
  });
});

describe('token auth', () => {
  let h: Harness;
  before(async () => {
    h = await start({ token: 's3cret' });
  });
  after(() => stop(h));

  test('the right token reaches the engine through every service', async () => {
    const res = await h.client.search.search({ query: 'x' });
    assert.deepEqual(
      h.engine.requests.map((r) => r.query),
      ['x'],
      'the search reached the engine once',
    );
    assert.deepEqual(
      res.results.map((r) => r.chunkId),
      ['chunk-1', 'chunk-2'],
    );
    const vocab = await h.client.symbols.getVocabulary({});
    assert.deepEqual(
      vocab.entries.map((e) => e.name),
      ['addEdge', 'Graph', 'slugify'],
    );
    const info = await h.client.index.getIndexStatus({});
    assert.equal(info.root, '/repo');
    assert.equal(info.chunks, 42n);
  });

  test('a missing or wrong token is UNAUTHENTICATED; health needs none', async () => {
    const anonymous = connectCodesift(h.address);
    const wrong = connectCodesift(h.address, { token: 'guess' });
    try {
      const missing = await rejectsWith(
        anonymous.search.search({ query: 'x' }),
        status.UNAUTHENTICATED,
      );
      assert.match(missing.details, /missing credentials/);
      await rejectsWith(anonymous.index.getIndexStatus({}), status.UNAUTHENTICATED);
      const it = anonymous.index.watchIndexProgress({})[Symbol.asyncIterator]();
      await rejectsWith(it.next(), status.UNAUTHENTICATED);
      const bad = await rejectsWith(wrong.symbols.getVocabulary({}), status.UNAUTHENTICATED);
      assert.match(bad.details, /invalid token/);
      const md = new Metadata();
      md.set('authorization', 'Basic s3cret');
      await rejectsWith(
        anonymous.search.search({ query: 'x' }, { metadata: md }),
        status.UNAUTHENTICATED,
      );
      assert.equal(h.engine.requests.length, 1, 'refused calls never reach the engine');
      assert.equal(await anonymous.checkHealth(), 'SERVING');
    } finally {
      anonymous.close();
      wrong.close();
    }
  });
});

describe('StartIndex roots', () => {
  let scan: string;
  let h: Harness;
  before(async () => {
    scan = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-scan-')));
    mkdirSync(path.join(scan, 'repo'));
    h = await start({ indexRoots: { scanRoots: [scan] } });
  });
  after(async () => {
    await stop(h);
    rmSync(scan, { recursive: true, force: true });
  });

  test('a root outside the scan roots is PERMISSION_DENIED and queues nothing', async () => {
    for (const root of [tmpdir(), path.join(scan, '..'), `${scan}/repo/../..`, '/etc']) {
      const e = await rejectsWith(h.client.index.startIndex({ root }), status.PERMISSION_DENIED);
      assert.match(e.details, /outside the scan roots/);
    }
    assert.equal(h.jobs.starts.length, 0);
    await h.client.index.startIndex({ root: 'repo' });
    assert.deepEqual(h.jobs.starts.at(-1)?.root, path.join(scan, 'repo'));
  });
});

describe('server lifecycle', () => {
  test('without jobs StartIndex is UNIMPLEMENTED but the index status works', async () => {
    const h = await start({ withJobs: false });
    try {
      await rejectsWith(h.client.index.startIndex({}), status.UNIMPLEMENTED);
      const info = await h.client.index.getIndexStatus({});
      assert.equal(info.files, 3n);
    } finally {
      await stop(h);
    }
  });

  test('health turns NOT_SERVING on shutdown; a hanging call is cut off after the grace period', async () => {
    const h = await start();
    h.engine.hang = true;
    const watcher = connectCodesift(h.address);
    const statuses: string[] = [];
    const watching = (async () => {
      try {
        for await (const s of watcher.watchHealth('codesift.v1.SearchService')) statuses.push(s);
      } catch {
        // The stream is cut when the server is forced down.
      }
    })();
    try {
      while (statuses.length === 0) await new Promise((r) => setTimeout(r, 5));
      assert.deepEqual(statuses, ['SERVING']);
      const pending = h.client.search.search({ query: 'forever' }).catch((e: ServiceError) => e);
      while (h.engine.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      const t0 = performance.now();
      const down = h.server.shutdown({ graceMs: 300 });
      assert.equal(h.server.shutdown(), down, 'shutdown is idempotent');
      await down;
      assert.ok(performance.now() - t0 < 2000);
      const err = (await pending) as ServiceError;
      assert.ok(err.code !== undefined && err.code !== status.OK, 'the call was cancelled');
      await watching;
      assert.deepEqual(statuses, ['SERVING', 'NOT_SERVING']);
      await rejectsWith(watcher.checkHealth('', { deadlineMs: 1000 }), status.UNAVAILABLE);
    } finally {
      watcher.close();
      h.client.close();
    }
  });

  test('listening on a taken port fails with a clear message', async () => {
    const h = await start();
    const other = createGrpcServer({ engine: fakeEngine() });
    try {
      const port = Number(h.address.split(':').pop());
      await assert.rejects(
        other.listen('127.0.0.1', port),
        (e: unknown) =>
          e instanceof CodesiftError && /already in use/.test(e.message) && /--port/.test(e.hint!),
      );
    } finally {
      await other.shutdown({ graceMs: 100 });
      await stop(h);
    }
  });
});
