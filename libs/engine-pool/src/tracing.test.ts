// Trace context across the thread boundary: a search sent to a worker runs
// under the caller's active span, and the worker's spans reach the same
// collector. Its own file (own process): the SDK is a process-wide global.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { indexRepository } from '@codesift/pipeline';
import { openLocalEngine } from '@codesift/search';
import { startTelemetry, type Telemetry, withSpan } from '@codesift/telemetry';
import { type OtlpReceiver, startOtlpReceiver } from '@codesift/telemetry/testing';
import { localEngineFactory } from './local-factory.js';
import { openEnginePool } from './pool.js';

let dir: string;
let indexPath: string;
let receiver: OtlpReceiver;
let telemetry: Telemetry;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'codesift-pool-trace-'));
  const root = path.join(dir, 'repo');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  writeFileSync(
    path.join(root, 'src', 'retry.py'),
    'def retry_request(call, attempts=3):\n    """Try the call again after waiting."""\n    return call()\n',
  );
  indexPath = path.join(dir, 'index.db');
  await indexRepository({ root, indexPath, vectors: false });
  receiver = await startOtlpReceiver();
  telemetry = await startTelemetry({
    serviceName: 'codesift-pool-test',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
  });
});
after(async () => {
  await telemetry.shutdown();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

test('search spans made on a worker thread are children of the caller’s span', async () => {
  const primary = await openLocalEngine({ indexPath, embedder: null });
  const pool = await openEnginePool({
    factory: localEngineFactory({ indexPath, embedder: null }),
    threads: 1,
    primary,
  });
  let traceId = '';
  let outerId = '';
  try {
    await withSpan('rpc Search', {}, async (span) => {
      traceId = span.spanContext().traceId;
      outerId = span.spanContext().spanId;
      const res = await pool.search({ query: 'retry request' });
      assert.ok(res.results.length > 0);
    });
  } finally {
    // Closing the pool flushes the worker's spans before its thread ends.
    await pool.close();
    await primary.close();
  }
  await telemetry.flush();
  const spans = await receiver.waitFor((s) => s.some((x) => x.name === 'search.keyword'));
  const keyword = spans.find((s) => s.name === 'search.keyword')!;
  assert.equal(keyword.traceId, traceId);
  assert.equal(keyword.serviceName, 'codesift-pool-test');
  // Parent chain from the worker's span up to the caller's span.
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  let at: string | undefined = keyword.parentSpanId;
  const seen: string[] = [];
  while (at && at !== outerId && byId.has(at)) {
    seen.push(byId.get(at)!.name);
    at = byId.get(at)!.parentSpanId;
  }
  assert.equal(at, outerId, `chain: ${seen.join(' <- ')}`);
});
