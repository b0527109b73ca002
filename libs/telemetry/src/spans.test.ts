// withSpan and the traceparent conversions with a real SDK exporting over a
// socket to the loopback OTLP receiver.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { contextFromTraceparent, traceparentFromContext } from './propagation.js';
import { withSpan } from './spans.js';
import { startTelemetry, type Telemetry } from './start.js';
import { type OtlpReceiver, startOtlpReceiver } from './testing/otlp-receiver.js';

let receiver: OtlpReceiver;
let telemetry: Telemetry;

before(async () => {
  receiver = await startOtlpReceiver();
  telemetry = await startTelemetry({
    serviceName: 'codesift-telemetry-test',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
  });
  assert.equal(telemetry.enabled, true);
});
after(async () => {
  await telemetry.shutdown();
  await receiver.close();
});

const REMOTE = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

test('contextFromTraceparent and traceparentFromContext round-trip, with tracestate', () => {
  const ctx = contextFromTraceparent(REMOTE, 'vendor=x');
  const sc = trace.getSpanContext(ctx);
  assert.equal(sc?.traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(sc?.spanId, 'b7ad6b7169203331');
  assert.equal(sc?.isRemote, true);
  assert.deepEqual(traceparentFromContext(ctx), { traceparent: REMOTE, tracestate: 'vendor=x' });
  assert.equal(traceparentFromContext(ROOT_CONTEXT), undefined);
  // Invalid headers are ignored (W3C: start a new trace rather than fail).
  assert.equal(contextFromTraceparent('00-zz-yy-01'), ROOT_CONTEXT);
  assert.equal(contextFromTraceparent(undefined), ROOT_CONTEXT);
});

test('withSpan nests under a remote parent, records errors, and exports', async () => {
  let inner: string | undefined;
  await context.with(contextFromTraceparent(REMOTE), () =>
    withSpan('outer', { 'codesift.k': 'v' }, async () => {
      await withSpan(
        'inner',
        {},
        async () => {
          inner = traceparentFromContext()?.traceparent;
        },
        { kind: SpanKind.CLIENT },
      );
      await assert.rejects(
        withSpan('failing', {}, async () => {
          throw new Error('kaput');
        }),
        /kaput/,
      );
    }),
  );
  await telemetry.flush();
  const spans = await receiver.waitFor((s) => s.length >= 3);
  const by = (name: string) => spans.find((s) => s.name === name)!;
  const outer = by('outer');
  assert.equal(outer.traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(outer.parentSpanId, 'b7ad6b7169203331');
  assert.equal(outer.attributes['codesift.k'], 'v');
  assert.equal(outer.serviceName, 'codesift-telemetry-test');
  assert.equal(by('inner').parentSpanId, outer.spanId);
  assert.equal(by('inner').kind, 'client');
  assert.equal(inner, `00-${outer.traceId}-${by('inner').spanId}-01`);
  const failing = by('failing');
  assert.equal(failing.parentSpanId, outer.spanId);
  assert.deepEqual(failing.status, { code: 'error', message: 'kaput' });
  assert.equal(failing.events[0]?.name, 'exception');
  assert.equal(failing.events[0]?.attributes['exception.message'], 'kaput');
});
