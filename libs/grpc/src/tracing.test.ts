// gRPC spans with a real OpenTelemetry SDK over a real connection: the
// client's span travels as traceparent metadata and the server's span is its
// child; everything is exported to the loopback OTLP receiver.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTelemetry, type Telemetry, withSpan } from '@codesift/telemetry';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '@codesift/telemetry/testing';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { trace } from '@opentelemetry/api';
import { type CodesiftClient, connectCodesift } from './client.js';
import { type CodesiftGrpcServer, createGrpcServer } from './server.js';
import { type FakeEngine, fakeEngine } from './testing/fake-engine.js';
import { fakeJobs } from './testing/fake-jobs.js';

let receiver: OtlpReceiver;
let telemetry: Telemetry;
let engine: FakeEngine;
let server: CodesiftGrpcServer;
let client: CodesiftClient;
let engineSawSpan: string | undefined;

before(async () => {
  receiver = await startOtlpReceiver();
  telemetry = await startTelemetry({
    serviceName: 'codesift-grpc-test',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
  });
  assert.equal(telemetry.enabled, true);
  engine = fakeEngine();
  const search = engine.search.bind(engine);
  engine.search = (request) => {
    // The engine runs inside the server span, so its own spans (the fan-out) nest under it.
    engineSawSpan = trace.getActiveSpan()?.spanContext().spanId;
    return search(request);
  };
  server = createGrpcServer({ engine, jobs: fakeJobs() });
  const { address } = await server.listen('127.0.0.1', 0);
  client = connectCodesift(address);
});

after(async () => {
  client?.close();
  await server?.shutdown({ graceMs: 500 });
  await telemetry?.shutdown();
  await receiver?.close();
});

const SEARCH = 'codesift.v1.SearchService/Search';

function spansOf(spans: ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((s) => s.traceId === traceId);
}

test('a unary call: caller span -> CLIENT span -> SERVER span, one trace', async () => {
  const caller = await withSpan('caller', {}, async (span) => {
    await client.search.search({ query: 'addEdge', limit: 3 });
    return span.spanContext();
  });
  await telemetry.flush();
  const spans = await receiver.waitFor(
    (s) => spansOf(s, caller.traceId).filter((x) => x.name === SEARCH).length >= 2,
  );
  const mine = spansOf(spans, caller.traceId);
  const clientSpan = mine.find((s) => s.name === SEARCH && s.kind === 'client');
  const serverSpan = mine.find((s) => s.name === SEARCH && s.kind === 'server');
  assert.ok(clientSpan && serverSpan, 'both a client and a server span');
  assert.equal(clientSpan.parentSpanId, caller.spanId);
  assert.equal(serverSpan.parentSpanId, clientSpan.spanId);
  assert.equal(engineSawSpan, serverSpan.spanId);
  assert.deepEqual(
    {
      system: serverSpan.attributes['rpc.system'],
      service: serverSpan.attributes['rpc.service'],
      method: serverSpan.attributes['rpc.method'],
      code: serverSpan.attributes['rpc.grpc.status_code'],
    },
    { system: 'grpc', service: 'codesift.v1.SearchService', method: 'Search', code: status.OK },
  );
  assert.equal(serverSpan.status.code, 'unset');
  assert.equal(clientSpan.attributes['rpc.grpc.status_code'], status.OK);
});

test('an explicit traceparent in metadata is the server span parent', async () => {
  const metadata = new Metadata();
  metadata.set('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  await client.symbols.lookupSymbol({ name: 'addEdge' }, { metadata });
  await telemetry.flush();
  const spans = await receiver.waitFor((s) =>
    spansOf(s, '4bf92f3577b34da6a3ce929d0e0e4736').some((x) => x.kind === 'server'),
  );
  const serverSpan = spansOf(spans, '4bf92f3577b34da6a3ce929d0e0e4736').find(
    (s) => s.kind === 'server',
  )!;
  assert.equal(serverSpan.name, 'codesift.v1.SymbolService/LookupSymbol');
  assert.equal(serverSpan.parentSpanId, '00f067aa0ba902b7');
});

test('a failing handler marks the server span ERROR with the exception', async () => {
  engine.fail = new Error('index exploded');
  try {
    const caller = await withSpan('failing-caller', {}, async (span) => {
      await assert.rejects(client.search.search({ query: 'x' }), (err: ServiceError) => {
        assert.equal(err.code, status.INTERNAL);
        return true;
      });
      return span.spanContext();
    });
    await telemetry.flush();
    const spans = await receiver.waitFor((s) =>
      spansOf(s, caller.traceId).some((x) => x.kind === 'server'),
    );
    const serverSpan = spansOf(spans, caller.traceId).find((s) => s.kind === 'server')!;
    assert.equal(serverSpan.attributes['rpc.grpc.status_code'], status.INTERNAL);
    assert.equal(serverSpan.status.code, 'error');
    assert.equal(serverSpan.events[0]?.name, 'exception');
    const clientSpan = spansOf(spans, caller.traceId).find((s) => s.kind === 'client')!;
    assert.equal(clientSpan.status.code, 'error');
  } finally {
    engine.fail = undefined;
  }
});

test('a server stream gets spans too; a caller error (NOT_FOUND) is not a server fault', async () => {
  const caller = await withSpan('stream-caller', {}, async (span) => {
    await assert.rejects(async () => {
      for await (const _ of client.index.watchIndexProgress({ jobId: 'nope' })) {
        // no progress expected
      }
    });
    return span.spanContext();
  });
  await telemetry.flush();
  const spans = await receiver.waitFor(
    (s) =>
      spansOf(s, caller.traceId).filter((x) => x.name.endsWith('/WatchIndexProgress')).length >= 2,
  );
  const mine = spansOf(spans, caller.traceId);
  const clientSpan = mine.find((s) => s.kind === 'client')!;
  const serverSpan = mine.find((s) => s.kind === 'server')!;
  assert.equal(serverSpan.parentSpanId, clientSpan.spanId);
  assert.equal(serverSpan.attributes['rpc.grpc.status_code'], status.NOT_FOUND);
  assert.equal(serverSpan.attributes['error.type'], 'NOT_FOUND');
  assert.equal(serverSpan.status.code, 'unset');
  assert.equal(clientSpan.attributes['rpc.grpc.status_code'], status.NOT_FOUND);
});
