/**
 * The OpenTelemetry API, loaded only once a tracer, context manager or
 * propagator has been registered with it. Without one every span is a
 * no-op, yet importing the API costs a cold `codesift search` dozens of
 * modules. Every copy of the API 1.x registers under the same global key,
 * so whoever set up tracing (the telemetry SDK, a test, an embedding
 * application) has put it there before the first span is asked for; the
 * API's CommonJS build is then loaded synchronously on that first span.
 */
import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let api: typeof OtelApi | undefined;

/** The API when tracing is set up in this process; undefined while nothing is registered. */
export function tracingApi(): typeof OtelApi | undefined {
  if (api === undefined && API_GLOBAL in globalThis) {
    api = createRequire(import.meta.url)('@opentelemetry/api') as typeof OtelApi;
  }
  return api;
}
