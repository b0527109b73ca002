import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import type { SearchEngine, SearchRequest, SearchResponse, Snippet } from '@codesift/search';
import { type ServiceError, status } from '@grpc/grpc-js';
import { type CodesiftClient, connectCodesift } from './client.js';
import { connectRemoteEngine } from './remote-engine.js';
import { MAX_SNIPPET_LINE, MAX_SNIPPET_SPAN } from './search-service.js';
import { type CodesiftGrpcServer, createGrpcServer } from './server.js';
import { type FakeEngine, fakeEngine } from './testing/fake-engine.js';

/** A small file the engine below serves snippets from, as the local engine reads indexed files. */
const FILE = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);

/**
 * The transport fake engine with a getSnippet that behaves like the local
 * engine's: refuses paths leaving the root, clamps the range to the file.
 */
function snippetEngine(): FakeEngine {
  const engine = fakeEngine();
  engine.getSnippet = async (file, startLine, endLine): Promise<Snippet> => {
    if (file.startsWith('/') || file.split('/').includes('..')) {
      throw new CodesiftError('PATH_OUTSIDE_ROOT', `${file} is outside the indexed root`, {
        hint: 'pass a path relative to the root',
      });
    }
    if (file !== 'src/graph.ts') {
      throw new CodesiftError('INVALID_ARGUMENT', `${file} is not an indexed file`);
    }
    const start = Math.min(Math.max(1, Math.floor(startLine)), FILE.length);
    const end = Math.min(Math.max(start, Math.floor(endLine)), FILE.length);
    return {
      path: file,
      startLine: start,
      endLine: end,
      language: 'typescript',
      text: FILE.slice(start - 1, end).join('\n'),
    };
  };
  return engine;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail('expected the call to fail');
}

/** Compares two responses without their timings, which differ from call to call. */
function comparable(res: SearchResponse): Omit<SearchResponse, 'timings'> {
  const { timings: _timings, ...rest } = res;
  return rest;
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

describe('remote engine over a real gRPC server', () => {
  let local: FakeEngine;
  let server: CodesiftGrpcServer;
  let address: string;
  let remote: SearchEngine;
  let client: CodesiftClient;
  const TOKEN = 'remote-engine-test-token';

  before(async () => {
    local = snippetEngine();
    server = createGrpcServer({ engine: local, token: TOKEN });
    ({ address } = await server.listen('127.0.0.1', 0));
    remote = await connectRemoteEngine(address, { token: TOKEN, check: true });
    client = connectCodesift(address, { token: TOKEN });
  });
  after(async () => {
    await remote.close();
    client.close();
    await server.shutdown({ graceMs: 500 });
  });

  test('search answers what the engine answers', async () => {
    const requests: SearchRequest[] = [
      { query: 'addEdge', limit: 5 },
      { query: 'graph', limit: 1, fusion: 'rrf', collapseFiles: true },
      {
        query: 'addEdge',
        filter: { languages: ['typescript'], include: ['src/**'], exclude: ['**/*.test.ts'] },
        focus: 'tests',
        expansion: false,
        anchors: false,
        focusScoring: false,
      },
    ];
    for (const request of requests) {
      const want = await local.search({ ...request });
      const got = await remote.search({ ...request });
      assert.deepEqual(comparable(got), comparable(want));
      assert.deepEqual(Object.keys(got.timings), Object.keys(want.timings));
      // What reached the engine through the server is the same request.
      const sent = local.requests.at(-1)!;
      assert.equal(sent.query, request.query);
      assert.equal(sent.limit, request.limit ?? 10);
      assert.equal(sent.fusion, request.fusion);
      assert.deepEqual(sent.filter, request.filter);
      assert.equal(sent.focus, request.focus);
      assert.equal(sent.expansion, request.expansion);
    }
    const top = (await remote.search({ query: 'addEdge' })).results[0]!;
    assert.equal(top.snippetStartLine, 6, 'the snippet start line travels (not the chunk start)');
    assert.equal(top.symbol, 'Graph.addEdge');
    const readme = (await remote.search({ query: 'addEdge' })).results[1]!;
    assert.equal(readme.symbol, null, 'an empty symbol reads back as null');
  });

  test('explain brings the score parts back; a deadline reaches the engine', async () => {
    const got = await remote.search({ query: 'addEdge', explain: true, deadlineMs: 5000 });
    assert.deepEqual(got.results[0]!.explain, {
      keyword: 3.5,
      keywordRank: 1,
      vector: null,
      vectorRank: null,
      fused: 0.9,
      focusMultiplier: 1,
    });
    const budget = local.requests.at(-1)!.deadlineMs!;
    assert.ok(budget > 4000 && budget < 5000, `engine budget ${budget} ms`);
  });

  test('lookupSymbol, vocabulary and status answer what the engine answers', async () => {
    assert.deepEqual(await remote.lookupSymbol('addEdge'), await local.lookupSymbol('addEdge'));
    assert.deepEqual(
      await remote.lookupSymbol('addEdge', { kind: 'method', limit: 3 }),
      await local.lookupSymbol('addEdge', { kind: 'method', limit: 3 }),
    );
    assert.deepEqual(await remote.lookupSymbol('addEdge', { kind: 'class' }), []);
    assert.deepEqual(await remote.vocabulary(), await local.vocabulary());
    assert.deepEqual(
      await remote.vocabulary({ prefix: 'add', limit: 5 }),
      await local.vocabulary({ prefix: 'add', limit: 5 }),
    );
    assert.deepEqual(await remote.status(), await local.status());
  });

  test('status maps proto3 zeros back to the nulls of an index without them', async () => {
    const original = local.status;
    local.status = async () => ({
      ...(await original()),
      root: null,
      embedder: null,
      dimensions: null,
    });
    try {
      assert.deepEqual(await remote.status(), await local.status());
    } finally {
      local.status = original;
    }
  });

  test('getSnippet answers what the engine answers, clamping as it does', async () => {
    const cases: [number, number][] = [
      [3, 7],
      [1, 1],
      [25, 500],
      [0, 2],
      [9, 4],
      [2.7, 5.2],
      [1, MAX_SNIPPET_LINE * 10],
      [MAX_SNIPPET_LINE * 10, MAX_SNIPPET_LINE * 20],
    ];
    for (const [start, end] of cases) {
      assert.deepEqual(
        await remote.getSnippet('src/graph.ts', start, end),
        await local.getSnippet('src/graph.ts', start, end),
        `${start}-${end}`,
      );
    }
  });

  test('engine errors come back as the same CodesiftError', async () => {
    const outside = await rejection(remote.getSnippet('../etc/passwd', 1, 5));
    assert.ok(outside instanceof CodesiftError);
    assert.equal(outside.code, 'PATH_OUTSIDE_ROOT');
    assert.equal(outside.message, '../etc/passwd is outside the indexed root');
    assert.equal(outside.hint, 'pass a path relative to the root');

    const notIndexed = await rejection(remote.getSnippet('.env', 1, 5));
    assert.ok(notIndexed instanceof CodesiftError);
    assert.equal(notIndexed.code, 'INVALID_ARGUMENT');
    assert.equal(notIndexed.hint, undefined);

    local.fail = new CodesiftError('INDEX_NOT_FOUND', 'no index at /srv/x.db', {
      hint: 'run `codesift index <dir>`',
    });
    try {
      for (const call of [
        () => remote.search({ query: 'x' }),
        () => remote.status(),
        () => remote.lookupSymbol('x'),
      ]) {
        const err = await rejection(call());
        assert.ok(err instanceof CodesiftError);
        assert.equal(err.code, 'INDEX_NOT_FOUND');
        assert.equal(err.message, 'no index at /srv/x.db');
        assert.equal(err.hint, 'run `codesift index <dir>`');
      }
      local.fail = new CodesiftError('UNREADABLE', 'cannot read src/a.ts: EACCES');
      const unreadable = await rejection(remote.search({ query: 'x' }));
      assert.ok(unreadable instanceof CodesiftError);
      assert.equal(unreadable.code, 'UNREADABLE', 'codes without a status of their own survive');
      local.fail = new Error('plain failure');
      const plain = await rejection(remote.search({ query: 'x' }));
      assert.ok(plain instanceof CodesiftError);
      assert.equal(plain.code, 'INTERNAL');
      assert.match(plain.message, new RegExp(`${address}.*plain failure`));
    } finally {
      local.fail = undefined;
    }
  });

  test('GetSnippet validates its request', async () => {
    const bad: [Parameters<CodesiftClient['search']['getSnippet']>[0], RegExp][] = [
      [{ path: '', range: { startLine: 1, endLine: 2 } }, /path must not be empty/],
      [{ path: '  ', range: { startLine: 1, endLine: 2 } }, /path must not be empty/],
      [{ path: 'src/graph.ts' }, /range is required/],
      [{ path: 'src/graph.ts', range: { startLine: 0, endLine: 2 } }, /at least 1/],
      [{ path: 'src/graph.ts', range: { startLine: 5, endLine: 4 } }, /must not be before/],
      [
        { path: 'src/graph.ts', range: { startLine: 1, endLine: MAX_SNIPPET_LINE + 1 } },
        /end_line must be at most/,
      ],
      [
        { path: 'src/graph.ts', range: { startLine: 1, endLine: MAX_SNIPPET_SPAN + 1 } },
        /at most 10000 per call/,
      ],
      [{ path: 'x'.repeat(5000), range: { startLine: 1, endLine: 2 } }, /at most 4096/],
    ];
    for (const [request, message] of bad) {
      const err = (await rejection(client.search.getSnippet(request))) as ServiceError;
      assert.equal(err.code, status.INVALID_ARGUMENT, `${JSON.stringify(request.range)}`);
      assert.match(err.details, message);
    }
    const outside = (await rejection(
      client.search.getSnippet({ path: '../x', range: { startLine: 1, endLine: 2 } }),
    )) as ServiceError;
    assert.equal(outside.code, status.INVALID_ARGUMENT);
    assert.deepEqual(outside.metadata.get('codesift-error-code'), ['PATH_OUTSIDE_ROOT']);
    const ok = await client.search.getSnippet({
      path: 'src/graph.ts',
      range: { startLine: 29, endLine: MAX_SNIPPET_SPAN },
    });
    assert.deepEqual([ok.path, ok.range?.startLine, ok.range?.endLine], ['src/graph.ts', 29, 30]);
    assert.equal(ok.text, 'line 29\nline 30');
    assert.equal(ok.language, 'typescript');
  });

  test('a wrong or missing token is refused with the address named', async () => {
    for (const token of ['wrong-token', undefined]) {
      const err = await rejection(
        connectRemoteEngine(address, { ...(token ? { token } : {}), check: true }),
      );
      assert.ok(err instanceof CodesiftError);
      assert.equal(err.code, 'INVALID_ARGUMENT');
      assert.match(err.message, new RegExp(`${address} refused the call: (invalid token|missing)`));
      assert.match(err.hint ?? '', /--token/);
    }
    // Without check, the first call fails the same way.
    const unchecked = await connectRemoteEngine(address, { token: 'wrong-token' });
    try {
      const err = await rejection(unchecked.lookupSymbol('addEdge'));
      assert.ok(err instanceof CodesiftError);
      assert.match(err.message, /refused the call/);
    } finally {
      await unchecked.close();
    }
  });

  test('a closed engine refuses calls, as the local one does', async () => {
    const e = await connectRemoteEngine(address, { token: TOKEN });
    await e.close();
    await e.close();
    const err = await rejection(e.status());
    assert.ok(err instanceof CodesiftError);
    assert.match(err.message, /closed/);
  });
});

describe('remote engine without a server', () => {
  test('an unreachable address is a clear UNAVAILABLE error naming it', async () => {
    const address = `127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const err = await rejection(connectRemoteEngine(address, { check: true }));
    assert.ok(err instanceof CodesiftError);
    assert.equal(err.code, 'UNAVAILABLE');
    assert.match(err.message, new RegExp(`cannot reach the query service at ${address}`));
    assert.match(err.hint ?? '', /codesift serve/);
    assert.ok(Date.now() - started < 10_000, 'fails fast, not at the deadline');
  });

  test('a server that never answers in time is a TIMEOUT naming the address', async () => {
    const engine = fakeEngine();
    engine.hang = true;
    const server = createGrpcServer({ engine });
    const { address } = await server.listen('127.0.0.1', 0);
    const remote = await connectRemoteEngine(address, { searchDeadlineMs: 200 });
    try {
      const err = await rejection(remote.search({ query: 'x' }));
      assert.ok(err instanceof CodesiftError);
      // The server's engine gives up first (its budget is shorter) or the call's deadline passes.
      assert.ok(['TIMEOUT'].includes(err.code), `${err.code}: ${err.message}`);
      const aborted = new AbortController();
      const pending = remote.search({ query: 'x', signal: aborted.signal });
      setTimeout(() => aborted.abort(new Error('stop')), 50);
      const reason = await rejection(pending);
      assert.equal((reason as Error).message, 'stop', 'the caller sees its own abort reason');
    } finally {
      await remote.close();
      await server.shutdown({ graceMs: 200 });
    }
  });

  test('an empty address is refused', async () => {
    const err = await rejection(connectRemoteEngine('  '));
    assert.ok(err instanceof CodesiftError);
    assert.equal(err.code, 'INVALID_ARGUMENT');
  });
});
