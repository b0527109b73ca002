// The Prometheus endpoint with the real metrics SDK: what the instruments
// record is what a scrape reads. In its own file (own process): the meter
// provider is a process-wide global.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { codesiftMetrics, degradedSide, observeQueueDepth } from './metrics.js';
import { startTelemetry, type Telemetry } from './start.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let telemetry: Telemetry;
let scrapeUrl: string;
// Taken before the provider exists, as a library module would at load.
const early = codesiftMetrics();

before(async () => {
  telemetry = await startTelemetry({
    serviceName: 'codesift-metrics-test',
    env: { CODESIFT_METRICS_PORT: String(await freePort()) },
  });
  assert.equal(telemetry.enabled, false, 'metrics alone start no tracing');
  assert.equal(telemetry.metricsEnabled, true);
  scrapeUrl = telemetry.prometheusUrl!;
});
after(() => telemetry.shutdown());

async function scrape(): Promise<string> {
  const res = await fetch(scrapeUrl);
  assert.equal(res.status, 200);
  return res.text();
}

/** The value of the sample line `name{…labels…}`, or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && labels.split(',').every((l) => line.includes(l))) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return undefined;
}

test('counters, histograms and the queue-depth gauge move on the scrape endpoint', async () => {
  let depth = 7;
  const stop = observeQueueDepth({ stage: 'embedder' }, async () => depth);
  const m = codesiftMetrics();
  assert.notEqual(m, early, 'instruments follow the provider registered after load');
  m.chunks.add(3, { stage: 'embedder' });
  m.queryDuration.record(0.02, { outcome: 'ok' });
  const first = await scrape();
  assert.equal(sample(first, 'codesift_chunks_total', 'stage="embedder"'), 3);
  assert.equal(sample(first, 'codesift_queue_depth', 'stage="embedder"'), 7);
  assert.equal(sample(first, 'codesift_query_duration_count', 'outcome="ok"'), 1, first);
  assert.equal(sample(first, 'codesift_query_duration_bucket', 'le="0.025"'), 1);
  m.chunks.add(2, { stage: 'embedder' });
  depth = 0;
  const second = await scrape();
  assert.equal(sample(second, 'codesift_chunks_total', 'stage="embedder"'), 5);
  assert.equal(sample(second, 'codesift_queue_depth', 'stage="embedder"'), 0);
  stop();
});

test('degraded entries are counted by the side they name', () => {
  assert.equal(degradedSide('vector: timeout'), 'vector');
  assert.equal(degradedSide('keyword: database is locked'), 'keyword');
  assert.equal(degradedSide('variant entities: x'), 'variant');
});
