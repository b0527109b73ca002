// Traces and metrics of the cluster end to end, every part its own process:
// nats-server, every `codesift-worker` stage and `codesift-query` (with a
// search worker thread), all exporting OTLP/HTTP JSON to a plain receiver
// started here on loopback. One index job must give each file one trace
// through scanner → chunker → contextualizer → embedder → writer (the
// context travels in NATS headers), rooted at the StartIndex call; one
// search one trace from the gRPC server span down to the store side run on
// the worker thread; `codesift search --remote` one trace from the CLI to
// the store. The Prometheus endpoints are scraped before and after.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { type CodesiftClient, connectCodesift } from '@codesift/grpc';
import { JobState } from '@codesift/proto';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '@codesift/telemetry/testing';
import { runCli } from '../support/cli.js';
import {
  freePort,
  listeningAddress,
  type QueryProcess,
  stageEnv,
  startQuery,
  startWorker,
  type Worker,
  workersStarted,
} from '../support/processes.js';
import { writeTree } from '../support/tree.js';

const STAGES = ['scanner', 'chunker', 'contextualizer', 'embedder', 'writer', 'symbols'];
/** The hops a file takes, in order, as consumer group names on the CONSUMER spans. */
const HOPS = ['scanner', 'chunker', 'contextualizer', 'embedder', 'writer'];
const TOKEN = 'cluster-telemetry-test-token';

const TREE: Record<string, string> = {
  'src/graph.ts':
    'export class Graph {\n  addEdge(a: string, b: string): void {\n    this.edges.push([a, b]);\n  }\n}\n',
  'py/config.py':
    'def parse_config(path):\n    """Parse the configuration file at path."""\n    return open(path).read()\n',
  'go/store.go': 'package store\n\n// Put stores v under k.\nfunc Put(k string, v int) {\n}\n',
  'README.md': '# Graph tools\n\nCall addEdge to connect two nodes.\n',
};

/** The value of the Prometheus sample `name{…}` whose labels include every one given; 0 if absent. */
async function scrape(port: number, name: string, labels: string[] = []): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(res.status, 200);
  const text = await res.text();
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && labels.every((l) => line.includes(l))) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return 0;
}

/** `span` and its ancestors among `spans`, nearest first. */
function ancestry(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain = [span];
  let parent = span.parentSpanId;
  while (parent && byId.has(parent) && chain.length < 100) {
    const next = byId.get(parent)!;
    chain.push(next);
    parent = next.parentSpanId;
  }
  return chain;
}

const consumerOf = (s: ReceivedSpan) =>
  s.kind === 'consumer' ? (s.attributes['messaging.consumer.group.name'] as string) : undefined;
const listsPath = (s: ReceivedSpan, p: string) =>
  Array.isArray(s.attributes['codesift.paths']) && s.attributes['codesift.paths'].includes(p);

describe('cluster traces and metrics (end to end)', () => {
  let work: string;
  let server: NatsServerHandle;
  let receiver: OtlpReceiver;
  const workers: Worker[] = [];
  let query: QueryProcess | undefined;
  let client: CodesiftClient | undefined;
  let address = '';
  let writerMetrics = 0;
  let queryMetrics = 0;

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-cluster-otel-'));
    server = await startNatsServer();
    receiver = await startOtlpReceiver();
    writerMetrics = await freePort();
    queryMetrics = await freePort();
    const checkouts = path.join(work, 'checkouts');
    writeTree(path.join(checkouts, 'repo'), TREE);
    const indexPath = path.join(work, 'data', 'index.db');
    const env = {
      NATS_URL: server.url,
      CODESIFT_INDEX: indexPath,
      CODESIFT_EMBEDDER: 'none',
      CODESIFT_SCAN_ROOT: checkouts,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
    };
    for (const stage of STAGES) {
      const own =
        stage === 'writer' ? { ...env, CODESIFT_METRICS_PORT: String(writerMetrics) } : env;
      workers.push(startWorker(stage, stageEnv(stage, own, work)));
    }
    await workersStarted(workers);
    query = startQuery({
      ...env,
      CODESIFT_GRPC_HOST: '127.0.0.1',
      CODESIFT_GRPC_PORT: '0',
      CODESIFT_TOKEN: TOKEN,
      // The pool path: before trace context crossed the thread, store spans were lost here.
      CODESIFT_SEARCH_THREADS: '1',
      CODESIFT_METRICS_PORT: String(queryMetrics),
    });
    address = await listeningAddress(query, 60_000);
    client = connectCodesift(address, { token: TOKEN });
  });
  after(async () => {
    client?.close();
    for (const p of [...workers.map((w) => w.proc), query?.proc]) {
      if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
    await Promise.all([...workers.map((w) => w.exit), query?.exit]);
    await server?.stop();
    await receiver?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const logs = () =>
    [...workers.map((w) => `--- ${w.stage}\n${w.log}`), `--- query\n${query?.log}`].join('\n');

  test('each file: one trace from StartIndex through every stage; writer metrics move', async () => {
    assert.equal(await scrape(writerMetrics, 'codesift_chunks_total', ['stage="writer"']), 0);
    const { jobId } = await client!.index.startIndex({ root: 'repo' });
    let state: JobState | undefined;
    for await (const { progress } of client!.index.watchIndexProgress(
      { jobId },
      { deadlineMs: 60_000 },
    )) {
      state = progress?.state;
    }
    assert.equal(state, JobState.SUCCEEDED, logs());

    const files = Object.keys(TREE);
    const writerSpan = (s: ReceivedSpan[], file: string) =>
      s.find((x) => consumerOf(x) === 'writer' && listsPath(x, file));
    // Each service exports its spans in its own batches, so a writer span can
    // arrive before its ancestors: wait for every chain to reach its root. On
    // a timeout the assertions below say which hop is missing.
    const reachesRoot = (s: ReceivedSpan[], file: string) => {
      const span = writerSpan(s, file);
      return span !== undefined && ancestry(span, s).at(-1)!.parentSpanId === undefined;
    };
    const spans = await receiver
      .waitFor((s) => files.every((f) => reachesRoot(s, f)), 30_000)
      .catch(() => receiver.spans);
    for (const file of files) {
      const span = writerSpan(spans, file);
      assert.ok(span, `${file}: no writer span`);
      const chain = ancestry(span, spans);
      const hops = chain
        .map(consumerOf)
        .filter((c) => c !== undefined)
        .reverse();
      assert.deepEqual(hops, HOPS, `${file}: ${chain.map((s) => s.name).join(' <- ')}`);
      // Every hop after the scanner names the file it carried.
      for (const s of chain.filter((x) => consumerOf(x) && consumerOf(x) !== 'scanner')) {
        assert.ok(listsPath(s, file), `${file} on ${s.name}`);
      }
      assert.equal(new Set(chain.map((s) => s.traceId)).size, 1, `${file}: one trace`);
      const root = chain.at(-1)!;
      assert.equal(root.name, 'codesift.v1.IndexService/StartIndex', file);
      assert.equal(root.kind, 'server');
      assert.equal(root.serviceName, 'codesift-query');
      assert.equal(root.parentSpanId, undefined);
      // The hops were recorded by the stages' own processes.
      assert.deepEqual(
        chain
          .filter((s) => consumerOf(s))
          .map((s) => s.serviceName)
          .reverse(),
        HOPS.map((h) => `codesift-${h}`),
      );
    }

    // The writer's Prometheus endpoint: chunks written and queue ages recorded.
    assert.ok((await scrape(writerMetrics, 'codesift_chunks_total', ['stage="writer"'])) >= 4);
    assert.ok((await scrape(writerMetrics, 'codesift_queue_wait_count', ['stage="writer"'])) >= 1);
    assert.ok(
      (await scrape(writerMetrics, 'codesift_stage_messages_total', [
        'stage="writer"',
        'outcome="acked"',
      ])) >= 1,
    );
    // The same metrics are pushed over OTLP.
    const deadline = Date.now() + 15_000;
    const pushed = () =>
      receiver.metrics.some(
        (m) => m.serviceName === 'codesift-writer' && m.name === 'codesift.chunks',
      );
    while (!pushed() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(pushed(), JSON.stringify(receiver.metrics.slice(0, 20)));
  });

  test('a search: one trace from the gRPC server span to the store side on the worker thread', async () => {
    const before = await scrape(queryMetrics, 'codesift_query_duration_count', ['outcome="ok"']);
    const res = await client!.search.search({ query: 'add an edge to the graph', limit: 5 });
    assert.ok(res.results.length > 0);
    const isKeyword = (s: ReceivedSpan) =>
      s.name === 'search.keyword' &&
      ancestry(s, receiver.spans).at(-1)?.name === 'codesift.v1.SearchService/Search';
    const spans = await receiver.waitFor((s) => s.some(isKeyword), 30_000);
    const keyword = spans.find(isKeyword)!;
    const chain = ancestry(keyword, spans);
    const server = chain.at(-1)!;
    assert.equal(server.kind, 'server');
    assert.equal(server.serviceName, 'codesift-query');
    assert.equal(keyword.serviceName, 'codesift-query');
    assert.equal(new Set(chain.map((s) => s.traceId)).size, 1);
    // Query latency on the query service's Prometheus endpoint moved by this search.
    assert.equal(
      await scrape(queryMetrics, 'codesift_query_duration_count', ['outcome="ok"']),
      before + 1,
    );
  });

  test('codesift search --remote: one trace from the CLI through the query service', async () => {
    const r = await runCli(
      ['search', 'parse configuration file', '--remote', address, '--token', TOKEN, '--json'],
      {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
        timeoutMs: 60_000,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok(JSON.parse(r.stdout).results.length > 0);
    const fromCli = (s: ReceivedSpan) =>
      s.name === 'search.keyword' && ancestry(s, receiver.spans).at(-1)?.name === 'codesift search';
    const spans = await receiver.waitFor((s) => s.some(fromCli), 30_000);
    const chain = ancestry(spans.find(fromCli)!, spans);
    assert.deepEqual(chain.map((s) => `${s.serviceName} ${s.kind} ${s.name}`).slice(-3), [
      'codesift-query server codesift.v1.SearchService/Search',
      'codesift-cli client codesift.v1.SearchService/Search',
      'codesift-cli internal codesift search',
    ]);
    assert.equal(new Set(chain.map((s) => s.traceId)).size, 1);
  });
});
