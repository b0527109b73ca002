// Reads the standard OTEL_* variables that decide whether and where this
// process exports traces. Pure (no SDK import), so the decision "tracing is
// off" costs nothing and is testable on its own.
import { CodesiftError } from '@codesift/core';

export type OtlpProtocol = 'http/json' | 'http/protobuf' | 'grpc';

export type TelemetryConfig =
  | { enabled: false; reason: string }
  | {
      enabled: true;
      serviceName: string;
      protocol: OtlpProtocol;
      /** Full URL spans are sent to (…/v1/traces for HTTP). */
      tracesUrl: string;
      /** Delay between two batch exports (OTEL_BSP_SCHEDULE_DELAY). */
      scheduledDelayMillis: number;
    };

const PROTOCOLS: readonly OtlpProtocol[] = ['http/json', 'http/protobuf', 'grpc'];

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

function parseUrl(name: string, raw: string): URL {
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // fall through to the error below
  }
  throw new CodesiftError('INVALID_ARGUMENT', `${name} is not an http(s) URL: '${raw}'`, {
    hint: 'e.g. http://jaeger:4318 (OTLP/HTTP) or unset it to turn tracing off',
  });
}

/**
 * Tracing is on only when an OTLP endpoint is configured and neither
 * OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says otherwise.
 * OTEL_SERVICE_NAME overrides the process's own name. codesift sends
 * OTLP/HTTP JSON unless OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL picks
 * http/protobuf or grpc.
 */
export function readTelemetryConfig(serviceName: string, env: NodeJS.ProcessEnv): TelemetryConfig {
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') {
    return { enabled: false, reason: 'OTEL_SDK_DISABLED=true' };
  }
  const exporters = value(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporters === 'none') return { enabled: false, reason: 'OTEL_TRACES_EXPORTER=none' };
  const tracesEndpoint = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!tracesEndpoint && !endpoint) {
    return { enabled: false, reason: 'no OTEL_EXPORTER_OTLP_ENDPOINT' };
  }
  const protocolRaw =
    value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    value(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/json';
  const protocol = PROTOCOLS.find((p) => p === protocolRaw.toLowerCase());
  if (!protocol) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `unsupported OTLP protocol '${protocolRaw}' (expected ${PROTOCOLS.join(', ')})`,
      { hint: 'set OTEL_EXPORTER_OTLP_PROTOCOL=http/json, or unset it' },
    );
  }
  let tracesUrl: string;
  if (tracesEndpoint) {
    // The signal-specific variable is used exactly as given (OTLP spec).
    tracesUrl = parseUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint).href;
  } else {
    const base = parseUrl('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint!);
    // gRPC has no path; HTTP appends the signal path to the base endpoint.
    tracesUrl = protocol === 'grpc' ? base.href : `${base.href.replace(/\/+$/, '')}/v1/traces`;
  }
  const delay = Number(value(env, 'OTEL_BSP_SCHEDULE_DELAY') ?? 5000);
  return {
    enabled: true,
    serviceName: value(env, 'OTEL_SERVICE_NAME') ?? serviceName,
    protocol,
    tracesUrl,
    scheduledDelayMillis: Number.isFinite(delay) && delay >= 0 ? delay : 5000,
  };
}
