// Spans on the bus with a real OpenTelemetry SDK, a real nats-server and the
// loopback OTLP receiver: one trace from the first publish through a
// consumer that republishes, to a consumer that fails once and then succeeds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTelemetry, type Telemetry } from '@codesift/telemetry';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '@codesift/telemetry/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { context, trace } from '@opentelemetry/api';
import { consume, type HandlerContext } from './consumer.js';
import { publish } from './publisher.js';
import { ensureStreams } from './streams.js';
import { WORK_QUEUES } from './subjects.js';
import { type NatsServerHandle, startNatsServer } from './testing/nats-server.js';
import { formatTraceparent, newRootTrace } from './trace-context.js';

let receiver: OtlpReceiver;
let telemetry: Telemetry;
let server: NatsServerHandle;
let nc: NatsConnection;

before(async () => {
  receiver = await startOtlpReceiver();
  telemetry = await startTelemetry({
    serviceName: 'codesift-bus-test',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
  });
  assert.equal(telemetry.enabled, true);
  server = await startNatsServer();
  nc = await connect({ servers: server.url, name: 'codesift-bus-tracing-test' });
  await ensureStreams(await jetstreamManager(nc), {
    storage: 'file',
    policies: { files: { ackWaitMs: 2000 }, chunks: { ackWaitMs: 2000 } },
  });
});

after(async () => {
  await nc?.close();
  await server?.stop();
  await telemetry?.shutdown();
  await receiver?.close();
});

const one = (spans: ReceivedSpan[], name: string, kind: ReceivedSpan['kind']) => {
  const found = spans.filter((s) => s.name === name && s.kind === kind);
  assert.equal(found.length, 1, `one ${kind} span '${name}', got ${found.length}`);
  return found[0]!;
};

test('publish -> consume -> republish -> consume (retried) is one trace with parent links', {
  timeout: 30_000,
}, async () => {
  const js = jetstream(nc);
  const origin = newRootTrace();
  const seen: { files?: HandlerContext; chunks: HandlerContext[] } = { chunks: [] };

  const files = await consume(
    js,
    'files',
    async (message, ctx) => {
      seen.files = ctx;
      // The handler's span is active: what it publishes (explicitly passing
      // ctx.trace, as the stages do) becomes its child.
      assert.equal(trace.getActiveSpan()?.spanContext().spanId, ctx.trace.spanId);
      await publish(
        js,
        'chunks',
        { jobId: message.jobId, files: message.files.map((f) => ({ path: f.path, hash: f.hash })) },
        { traceparent: ctx.trace },
      );
    },
    { pullExpiresMs: 1000 },
  );
  const chunks = await consume(
    js,
    'chunks',
    async (_message, ctx) => {
      seen.chunks.push(ctx);
      if (ctx.deliveries === 1) throw new Error('transient failure');
    },
    { pullExpiresMs: 1000, retryBackoffMs: [50] },
  );
  try {
    await publish(
      js,
      'files',
      { jobId: 'job-trace', files: [{ path: 'src/a.ts', hash: 'h1', root: '/repo' }] },
      { traceparent: formatTraceparent(origin) },
    );
    await telemetry.flush();
    const spans = await receiver.waitFor(
      (s) => s.filter((x) => x.kind === 'consumer' && x.name.endsWith('.chunks')).length >= 2,
      20_000,
    );
    await telemetry.flush();

    const sendFiles = one(spans, `send ${WORK_QUEUES.files.subject}`, 'producer');
    const processFiles = one(spans, `process ${WORK_QUEUES.files.subject}`, 'consumer');
    const sendChunks = one(spans, `send ${WORK_QUEUES.chunks.subject}`, 'producer');
    const processChunks = spans.filter(
      (s) => s.name === `process ${WORK_QUEUES.chunks.subject}` && s.kind === 'consumer',
    );
    assert.equal(processChunks.length, 2);

    // One trace, the caller's, end to end.
    for (const s of [sendFiles, processFiles, sendChunks, ...processChunks]) {
      assert.equal(s.traceId, origin.traceId, `${s.name} is in the caller's trace`);
      assert.equal(s.serviceName, 'codesift-bus-test');
      assert.equal(s.attributes['messaging.system'], 'nats');
      assert.equal(s.attributes['codesift.job_id'], 'job-trace');
    }
    // Parent links: origin -> send files -> process files -> send chunks -> process chunks.
    assert.equal(sendFiles.parentSpanId, origin.spanId);
    assert.equal(processFiles.parentSpanId, sendFiles.spanId);
    assert.equal(sendChunks.parentSpanId, processFiles.spanId);
    for (const p of processChunks) assert.equal(p.parentSpanId, sendChunks.spanId);

    // The handler's ctx.trace is the recorded consumer span.
    assert.equal(seen.files?.trace.traceId, origin.traceId);
    assert.equal(seen.files?.trace.spanId, processFiles.spanId);
    assert.equal(seen.files?.parentSpanId, sendFiles.spanId);
    assert.deepEqual(
      seen.chunks.map((c) => c.parentSpanId),
      [sendChunks.spanId, sendChunks.spanId],
    );

    // Consumer attributes.
    assert.equal(processFiles.attributes['messaging.destination.name'], WORK_QUEUES.files.subject);
    assert.equal(processFiles.attributes['messaging.nats.stream'], WORK_QUEUES.files.stream);
    assert.equal(processFiles.attributes['messaging.consumer.group.name'], 'chunker');
    assert.equal(processFiles.attributes['messaging.nats.delivery_count'], 1);
    assert.equal(processFiles.attributes['codesift.outcome'], 'acked');
    assert.equal(sendChunks.attributes['messaging.nats.stream'], WORK_QUEUES.chunks.stream);

    // The failed attempt is an error with the exception; the retry succeeded.
    const [first, second] = [...processChunks].sort(
      (a, b) =>
        Number(a.attributes['messaging.nats.delivery_count']) -
        Number(b.attributes['messaging.nats.delivery_count']),
    );
    assert.equal(first?.attributes['messaging.nats.delivery_count'], 1);
    assert.deepEqual(first?.status, { code: 'error', message: 'transient failure' });
    assert.equal(first?.attributes['codesift.outcome'], 'retried');
    assert.equal(
      first?.events.find((e) => e.name === 'exception')?.attributes['exception.message'],
      'transient failure',
    );
    assert.equal(second?.attributes['messaging.nats.delivery_count'], 2);
    assert.equal(second?.status.code, 'unset');
    assert.equal(second?.attributes['codesift.outcome'], 'acked');

    // It all came over the socket as OTLP/HTTP JSON.
    assert.ok(receiver.requests.length > 0);
    assert.ok(receiver.requests.every((r) => r.contentType.startsWith('application/json')));
  } finally {
    await files.stop();
    await chunks.stop();
  }
});

test('publish without a traceparent takes the active span as parent', {
  timeout: 20_000,
}, async () => {
  const js = jetstream(nc);
  const tracer = trace.getTracer('test');
  const parent = tracer.startSpan('caller');
  const parentId = parent.spanContext();
  await context.with(trace.setSpan(context.active(), parent), () =>
    publish(js, 'symbols', { jobId: 'job-active', files: [{ path: 'b.ts', hash: 'h2' }] }),
  );
  parent.end();
  await telemetry.flush();
  const spans = await receiver.waitFor((s) =>
    s.some((x) => x.attributes['codesift.job_id'] === 'job-active'),
  );
  const send = spans.find((s) => s.attributes['codesift.job_id'] === 'job-active')!;
  assert.equal(send.kind, 'producer');
  assert.equal(send.traceId, parentId.traceId);
  assert.equal(send.parentSpanId, parentId.spanId);
  // The header carries the producer span, so the consumer will be its child.
  const stored = await (await jetstreamManager(nc)).streams.getMessage(WORK_QUEUES.symbols.stream, {
    last_by_subj: WORK_QUEUES.symbols.subject,
  });
  assert.equal(stored?.header.get('traceparent'), `00-${send.traceId}-${send.spanId}-01`);
});
