// The cluster's query side end to end, every part its own process: a real
// nats-server, every `codesift-worker` stage (scanner and symbol service
// included) and `codesift-query`. An index job is started and watched over
// gRPC IndexService; Search and SymbolService then answer what local mode
// answers for the same tree, with the same LLM rewrite (a fake Ollama in
// vocabulary-echo mode, configured for both) and the same vocabulary slices.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { type CodesiftClient, connectCodesift } from '@codesift/grpc';
import { type FakeLlmServer, promptText, startFakeLlmServer } from '@codesift/llm/testing';
import { indexRepository } from '@codesift/pipeline';
import { type IndexProgress, JobState } from '@codesift/proto';
import { openLocalEngine } from '@codesift/search';
import { status as grpcStatus } from '@grpc/grpc-js';
import {
  isAlive,
  listeningAddress,
  type QueryProcess,
  stageEnv,
  startQuery,
  startWorker,
  type Worker,
} from '../support/processes.js';
import { writeTree } from '../support/tree.js';

const STAGES = ['scanner', 'chunker', 'contextualizer', 'embedder', 'writer', 'symbols'];
const TOKEN = 'cluster-query-test-token';

const TREE: Record<string, string> = {
  'src/graph.ts': [
    '/** A directed graph kept as adjacency lists. */',
    'export class Graph {',
    '  private readonly edges = new Map<string, string[]>();',
    '',
    '  /** Adds an edge from `a` to `b`, creating both nodes. */',
    '  addEdge(a: string, b: string): void {',
    '    const list = this.edges.get(a) ?? [];',
    '    list.push(b);',
    '    this.edges.set(a, list);',
    '  }',
    '',
    '  neighbours(a: string): string[] {',
    '    return this.edges.get(a) ?? [];',
    '  }',
    '}',
    '',
    'export function shortestPath(g: Graph, from: string, to: string): string[] {',
    '  return g.neighbours(from).includes(to) ? [from, to] : [];',
    '}',
    '',
  ].join('\n'),
  'src/graph.test.ts':
    "import { Graph } from './graph';\n\ntest('addEdge adds', () => {\n  new Graph().addEdge('a', 'b');\n});\n",
  'py/config.py':
    'import json\n\n\ndef parse_config(path):\n    """Parse the configuration file at path."""\n    with open(path) as f:\n        return json.load(f)\n',
  'go/store.go':
    'package store\n\n// Store keeps values by key.\ntype Store struct {\n\tm map[string]int\n}\n\n// Put stores v under k.\nfunc (s *Store) Put(k string, v int) {\n\ts.m[k] = v\n}\n',
  'README.md': '# Graph tools\n\n## Install\n\nRun npm install.\n\n## Usage\n\nCall addEdge.\n',
};

const QUERIES = ['add an edge to the graph', 'Graph.addEdge', 'parse configuration file', 'Store'];
/** Natural language the rewrite decision sends to the model. */
const QUESTION = 'how does a new edge get into the graph';
const MODEL = 'qwen3:0.6b';

describe('cluster query service over gRPC (end to end)', () => {
  let work: string;
  let server: NatsServerHandle;
  const workers: Worker[] = [];
  let query: QueryProcess | undefined;
  let client: CodesiftClient | undefined;
  let fake: FakeLlmServer;

  before(async () => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-cluster-query-')));
    server = await startNatsServer();
    fake = await startFakeLlmServer({ models: [MODEL], mode: { kind: 'vocabulary-echo' } });
  });
  after(async () => {
    client?.close();
    await fake?.close();
    for (const p of [...workers.map((w) => w.proc), query?.proc]) {
      if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
    await Promise.all([...workers.map((w) => w.exit), query?.exit]);
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test('StartIndex, watch its progress, then Search and LookupSymbol answer like local mode', async () => {
    const checkouts = path.join(work, 'checkouts');
    const root = path.join(checkouts, 'repo');
    writeTree(root, TREE);
    const indexPath = path.join(work, 'data', 'index.db');
    const env = {
      NATS_URL: server.url,
      CODESIFT_INDEX: indexPath,
      CODESIFT_EMBEDDER: 'none',
      CODESIFT_SCAN_ROOT: checkouts,
    };
    for (const stage of STAGES) {
      workers.push(startWorker(stage, stageEnv(stage, env, work)));
    }
    query = startQuery({
      NATS_URL: server.url,
      CODESIFT_INDEX: indexPath,
      CODESIFT_GRPC_HOST: '127.0.0.1',
      CODESIFT_GRPC_PORT: '0',
      CODESIFT_TOKEN: TOKEN,
      CODESIFT_SCAN_ROOTS: checkouts,
      CODESIFT_EMBEDDER: 'none',
      OLLAMA_HOST: fake.url,
      CODESIFT_LLM_MODEL: MODEL,
    });
    const logs = () =>
      [...workers.map((w) => `--- ${w.stage}\n${w.log}`), `--- query\n${query?.log}`].join('\n');
    const address = await listeningAddress(query);
    client = connectCodesift(address, { token: TOKEN });
    assert.equal(await client.checkHealth('', { deadlineMs: 5000 }), 'SERVING');
    const anonymous = connectCodesift(address);
    try {
      await assert.rejects(anonymous.search.search({ query: 'graph' }), /UNAUTHENTICATED/);
    } finally {
      anonymous.close();
    }

    // Stages subscribe as they start; a job may be queued before they do.
    const started = performance.now();
    const { jobId } = await client.index.startIndex({ root: 'repo' });
    assert.ok(jobId);
    const states: JobState[] = [];
    let last: IndexProgress | undefined;
    for await (const { progress } of client.index.watchIndexProgress(
      { jobId },
      { deadlineMs: 60_000 },
    )) {
      states.push(progress!.state);
      last = progress;
    }
    const seconds = (performance.now() - started) / 1000;
    assert.ok(last, 'the stream sent progress');
    assert.equal(last.state, JobState.SUCCEEDED, `${last.error}\n${logs()}`);
    assert.equal(states[0], JobState.QUEUED);
    assert.equal(last.filesTotal, BigInt(Object.keys(TREE).length));
    assert.equal(last.filesDone, last.filesTotal);
    assert.equal(last.failures, 0n);
    assert.ok(last.chunks >= 5n, `chunks: ${last.chunks}`);
    assert.ok(seconds < 30, `the job took ${seconds.toFixed(1)} s`);
    const status = await client.index.getIndexStatus({ jobId });
    assert.equal(status.job?.state, JobState.SUCCEEDED);
    assert.equal(status.files, BigInt(Object.keys(TREE).length));
    assert.equal(status.root, root);

    // Roots outside the scan roots (named, through `..`, or through a symlink
    // inside them) are PERMISSION_DENIED before anything is queued, and the
    // index keeps every file.
    const secret = path.join(work, 'private');
    writeTree(secret, { 'keys.ts': 'export const privateKeyMaterial = 1;\n' });
    symlinkSync(secret, path.join(checkouts, 'escape'));
    for (const bad of [secret, '/', '../private', 'repo/../../private', 'escape']) {
      await assert.rejects(
        client.index.startIndex({ root: bad, rebuild: true }),
        (e: { code?: number; details?: string }) =>
          e.code === grpcStatus.PERMISSION_DENIED && /outside the scan roots/.test(e.details ?? ''),
        bad,
      );
    }
    const unchanged = await client.index.getIndexStatus({});
    assert.equal(unchanged.files, status.files, 'the index keeps its files');
    assert.equal(unchanged.job?.jobId, jobId, 'no job was queued');

    // Local mode over the same tree, keyword only like the cluster.
    const localDb = path.join(work, 'local', 'index.db');
    await indexRepository({ root, indexPath: localDb, vectors: false });
    const local = await openLocalEngine({
      indexPath: localDb,
      embedder: null,
      env: { OLLAMA_HOST: fake.url, CODESIFT_LLM_MODEL: MODEL },
    });
    try {
      for (const q of [...QUERIES, QUESTION]) {
        const want = await local.search({ query: q, limit: 5 });
        const got = await client.search.search({ query: q, limit: 5 }, { deadlineMs: 10_000 });
        assert.ok(want.results.length > 0, q);
        assert.deepEqual(
          got.results.map((r) => [r.path, r.range?.startLine, r.range?.endLine, r.chunkId]),
          want.results.map((r) => [r.path, r.startLine, r.endLine, r.chunkId]),
          q,
        );
        for (const [i, r] of got.results.entries()) {
          assert.ok(Math.abs(r.score - want.results[i]!.score) < 1e-9, `${q}: score ${i}`);
        }
        assert.deepEqual(got.degraded, want.degraded, q);
      }
      // A natural-language question: the model gets the same vocabulary slice and the
      // cluster's search adds the same rewrite terms as local mode.
      const prompts = async (search: () => Promise<unknown>) => {
        const before = fake.generations().length;
        await search();
        return fake.generations().slice(before).map(promptText);
      };
      let wantPlan: Record<string, unknown> = {};
      let gotPlanJson = '{}';
      const wantPrompts = await prompts(async () => {
        wantPlan = (await local.search({ query: QUESTION, limit: 5, explain: true }))
          .plan as unknown as Record<string, unknown>;
      });
      const gotPrompts = await prompts(async () => {
        gotPlanJson = (await client!.search.search({ query: QUESTION, limit: 5, explain: true }))
          .planJson;
      });
      assert.equal(gotPrompts.length, 1);
      assert.deepEqual(gotPrompts, wantPrompts);
      assert.match(gotPrompts[0]!, /^addEdge \[method\] src\/graph\.ts$/m);
      const gotRewrite = JSON.parse(gotPlanJson).llmRewrite;
      const wantRewrite = wantPlan.llmRewrite as { terms: string[] };
      assert.deepEqual(
        [gotRewrite.decision, gotRewrite.model, gotRewrite.fallback],
        ['run', MODEL, null],
      );
      assert.ok(gotRewrite.terms.includes('addEdge'), JSON.stringify(gotRewrite));
      assert.deepEqual(gotRewrite.terms, wantRewrite.terms);
      // GetVocabulary with terms (the rewrite's slice) from the symbol service's store.
      const slice = await client.symbols.getVocabulary({ terms: ['edge', 'graph'], limit: 10 });
      const wantSlice = await local.vocabulary({ terms: ['edge', 'graph'], limit: 10 });
      assert.ok(wantSlice.some((e) => e.name === 'addEdge'));
      assert.deepEqual(
        slice.entries.map((e) => [e.name, Number(e.count)]),
        wantSlice.map((e) => [e.name, e.count]),
      );
      // SymbolService answers from the symbol service's own store.
      const lookup = await client.symbols.lookupSymbol({ name: 'addEdge' });
      const wantSymbols = await local.lookupSymbol('addEdge');
      assert.ok(wantSymbols.length > 0);
      assert.deepEqual(
        lookup.symbols.map((s) => [s.qualifiedName, s.path, s.range?.startLine, s.kind]),
        wantSymbols.map((s) => [s.qualifiedName, s.path, s.startLine, s.kind]),
      );
      const vocab = await client.symbols.getVocabulary({ prefix: 'p', limit: 10 });
      assert.deepEqual(
        vocab.entries.map((e) => [e.name, Number(e.count)]),
        (await local.vocabulary({ prefix: 'p', limit: 10 })).map((e) => [e.name, e.count]),
      );
    } finally {
      await local.close();
    }

    // A job whose root the scanner cannot scan ends failed, with the reason.
    const bad = await client.index.startIndex({ root: 'no-such-repo' });
    let badLast: IndexProgress | undefined;
    for await (const { progress } of client.index.watchIndexProgress({ jobId: bad.jobId })) {
      badLast = progress;
    }
    assert.equal(badLast?.state, JobState.FAILED);
    assert.match(badLast?.error ?? '', /directory not found: .*no-such-repo/);

    // Without the symbol service, symbol calls fail clearly; search goes on.
    const symbols = workers.find((w) => w.stage === 'symbols')!;
    symbols.proc.kill('SIGTERM');
    assert.equal(await symbols.exit, 0, symbols.log);
    await assert.rejects(
      client.symbols.lookupSymbol({ name: 'addEdge' }),
      /no symbols service answers/,
    );
    assert.ok((await client.search.search({ query: 'Graph.addEdge' })).results.length > 0);

    // Graceful stop: every process exits 0.
    const rest = workers.filter((w) => w !== symbols);
    query.proc.kill('SIGTERM');
    for (const w of rest) w.proc.kill('SIGTERM');
    assert.equal(await query.exit, 0, query.log);
    assert.deepEqual(
      await Promise.all(rest.map((w) => w.exit)),
      rest.map(() => 0),
      logs(),
    );
    assert.match(query.log, /"msg":"stopped"/);
    for (const p of [query.proc, ...rest.map((w) => w.proc)]) assert.ok(!isAlive(p.pid!));
  });
});
