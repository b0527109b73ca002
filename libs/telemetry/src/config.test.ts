import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readMetricsConfig, readTelemetryConfig } from './config.js';

test('tracing is off without an endpoint, and says why', () => {
  assert.deepEqual(readTelemetryConfig('codesift-x', {}), {
    enabled: false,
    reason: 'no OTEL_EXPORTER_OTLP_ENDPOINT',
  });
  assert.equal(readTelemetryConfig('x', { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }).enabled, false);
});

test('OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none win over an endpoint', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' };
  assert.deepEqual(readTelemetryConfig('x', { ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }), {
    enabled: false,
    reason: 'OTEL_SDK_DISABLED=true',
  });
  assert.equal(readTelemetryConfig('x', { ...endpoint, OTEL_SDK_DISABLED: 'false' }).enabled, true);
  assert.equal(
    readTelemetryConfig('x', { ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).enabled,
    false,
  );
});

test('the base endpoint gets /v1/traces; the traces endpoint is used as given', () => {
  const base = readTelemetryConfig('codesift-chunker', {
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318/',
  });
  assert.deepEqual(base, {
    enabled: true,
    serviceName: 'codesift-chunker',
    protocol: 'http/json',
    tracesUrl: 'http://jaeger:4318/v1/traces',
    console: false,
    scheduledDelayMillis: 5000,
  });
  const exact = readTelemetryConfig('x', {
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/custom/path',
    OTEL_SERVICE_NAME: 'renamed',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  });
  assert.ok(exact.enabled);
  assert.equal(exact.tracesUrl, 'https://collector.example/custom/path');
  assert.equal(exact.serviceName, 'renamed');
  assert.equal(exact.scheduledDelayMillis, 200);
});

test('protocol: http/protobuf and grpc are honoured, anything else is an error', () => {
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4317' };
  const grpc = readTelemetryConfig('x', { ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
  assert.ok(grpc.enabled);
  assert.equal(grpc.protocol, 'grpc');
  assert.equal(grpc.tracesUrl, 'http://otel:4317/');
  const proto = readTelemetryConfig('x', {
    ...env,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
  });
  assert.ok(proto.enabled);
  assert.equal(proto.protocol, 'http/protobuf');
  assert.throws(
    () => readTelemetryConfig('x', { ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }),
    /unsupported OTLP protocol 'thrift'/,
  );
});

test('a malformed endpoint fails loudly instead of silently dropping spans', () => {
  assert.throws(
    () => readTelemetryConfig('x', { OTEL_EXPORTER_OTLP_ENDPOINT: 'jaeger:4318' }),
    /OTEL_EXPORTER_OTLP_ENDPOINT is not an http\(s\) URL/,
  );
});

test('OTEL_TRACES_EXPORTER=console traces without a collector; otlp,console does both', () => {
  const only = readTelemetryConfig('x', { OTEL_TRACES_EXPORTER: 'console' });
  assert.ok(only.enabled);
  assert.equal(only.console, true);
  assert.equal(only.tracesUrl, undefined);
  // console alone ignores an endpoint; listing otlp too exports there as well.
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' };
  const consoleOnly = readTelemetryConfig('x', { ...endpoint, OTEL_TRACES_EXPORTER: 'console' });
  assert.ok(consoleOnly.enabled);
  assert.equal(consoleOnly.tracesUrl, undefined);
  const both = readTelemetryConfig('x', { ...endpoint, OTEL_TRACES_EXPORTER: 'otlp, console' });
  assert.ok(both.enabled);
  assert.equal(both.tracesUrl, 'http://otel:4318/v1/traces');
  assert.equal(both.console, true);
  assert.throws(
    () => readTelemetryConfig('x', { OTEL_TRACES_EXPORTER: 'jaeger' }),
    /unsupported OTEL_TRACES_EXPORTER 'jaeger'/,
  );
});

test('metrics: a Prometheus port, OTLP push beside traces, or nothing', () => {
  assert.equal(readMetricsConfig('x', {}), undefined);
  assert.equal(readMetricsConfig('x', { CODESIFT_METRICS_PORT: '0' }), undefined);
  assert.deepEqual(readMetricsConfig('codesift-query', { CODESIFT_METRICS_PORT: '9464' }), {
    serviceName: 'codesift-query',
    prometheus: { host: '127.0.0.1', port: 9464 },
  });
  assert.deepEqual(
    readMetricsConfig('q', {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318/',
      OTEL_METRICS_EXPORTER: 'otlp',
      CODESIFT_METRICS_PORT: '9464',
      CODESIFT_METRICS_HOST: '0.0.0.0',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
    }),
    {
      serviceName: 'q',
      prometheus: { host: '0.0.0.0', port: 9464 },
      otlp: { protocol: 'http/json', url: 'http://otel:4318/v1/metrics', intervalMillis: 1000 },
    },
  );
  // The traces endpoint alone (often Jaeger, which takes no metrics) pushes none.
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' };
  assert.equal(readMetricsConfig('x', env), undefined);
  assert.ok(readMetricsConfig('x', { ...env, OTEL_METRICS_EXPORTER: 'otlp' })?.otlp);
  assert.equal(readMetricsConfig('x', { ...env, OTEL_METRICS_EXPORTER: 'none' }), undefined);
  assert.equal(
    readMetricsConfig('x', { ...env, OTEL_METRICS_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }),
    undefined,
  );
  assert.equal(
    readMetricsConfig('x', { ...env, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m:1/x' })?.otlp
      ?.url,
    'http://m:1/x',
  );
  assert.throws(
    () => readMetricsConfig('x', { CODESIFT_METRICS_PORT: 'http' }),
    /CODESIFT_METRICS_PORT is not a port: 'http'/,
  );
});
