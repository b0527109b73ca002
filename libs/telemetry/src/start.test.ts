// startTelemetry in fresh child processes: which modules a process loads is
// only observable from its start, and the SDK registers process-wide globals.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startOtlpReceiver } from './testing/otlp-receiver.js';

const run = promisify(execFile);
const INDEX = new URL('./index.js', import.meta.url).href;
const API = import.meta.resolve('@opentelemetry/api');

// Records every module URL the child loads, starts telemetry with the given
// env, records one span, shuts down, and prints what it saw.
const PROBE = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
const { startTelemetry } = await import(${JSON.stringify(INDEX)});
const { trace } = await import(${JSON.stringify(API)});
const env = JSON.parse(process.env.PROBE_ENV);
const t = await startTelemetry({ serviceName: 'probe', env });
const span = trace.getTracer('probe').startSpan('probe-span');
const recording = span.isRecording();
span.end();
await t.shutdown();
console.log(JSON.stringify({
  enabled: t.enabled,
  reason: t.reason,
  recording,
  sdk: loaded.filter((u) => /@opentelemetry\\/(sdk-|exporter-)/.test(u)).length,
}));
`;

async function probe(env: Record<string, string>) {
  return (await probeWithStderr(env)).result;
}

async function probeWithStderr(env: Record<string, string>) {
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', PROBE], {
    env: { PATH: process.env.PATH, PROBE_ENV: JSON.stringify(env) },
    timeout: 30_000,
  });
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    enabled: boolean;
    reason?: string;
    recording: boolean;
    sdk: number;
  };
  return { result, stdout, stderr };
}

test('without an endpoint nothing is started and no SDK module is loaded', async () => {
  const off = await probe({});
  assert.deepEqual(off, {
    enabled: false,
    reason: 'no OTEL_EXPORTER_OTLP_ENDPOINT',
    recording: false,
    sdk: 0,
  });
});

test('OTEL_SDK_DISABLED=true keeps the SDK unloaded even with an endpoint', async () => {
  const off = await probe({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    OTEL_SDK_DISABLED: 'true',
  });
  assert.equal(off.enabled, false);
  assert.equal(off.sdk, 0);
  assert.equal(off.recording, false);
});

test('with an endpoint the SDK loads, spans record, and shutdown exports them', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const on = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    assert.equal(on.enabled, true);
    assert.equal(on.recording, true);
    assert.ok(on.sdk > 0, 'SDK modules were loaded');
    // shutdown() flushed before the child exited.
    const [span] = await receiver.waitFor((s) => s.length > 0);
    assert.equal(span?.name, 'probe-span');
    assert.equal(span?.serviceName, 'probe');
  } finally {
    await receiver.close();
  }
});

test('OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf sends protobuf to the same path', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const on = await probe({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    });
    assert.equal(on.enabled, true);
    assert.equal(receiver.requests.length, 1);
    assert.equal(receiver.requests[0]?.contentType, 'application/x-protobuf');
    assert.ok((receiver.requests[0]?.bytes ?? 0) > 0);
  } finally {
    await receiver.close();
  }
});

test('OTEL_TRACES_EXPORTER=console prints each span as a JSON line on stderr, not stdout', async () => {
  const { result, stdout, stderr } = await probeWithStderr({ OTEL_TRACES_EXPORTER: 'console' });
  assert.equal(result.enabled, true);
  assert.equal(result.recording, true);
  assert.equal(stdout.trim().split('\n').length, 1, 'stdout holds only the probe result');
  const line = stderr.split('\n').find((l) => l.startsWith('{'));
  assert.ok(line, stderr);
  const span = JSON.parse(line);
  assert.equal(span.span, 'probe-span');
  assert.equal(span.service, 'probe');
  assert.match(span.traceId, /^[0-9a-f]{32}$/);
  assert.equal(span.status, 'unset');
});
