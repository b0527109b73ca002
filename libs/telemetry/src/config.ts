// Reads the standard OTEL_* variables (and codesift's CODESIFT_METRICS_*)
// that decide whether and where this process exports traces and metrics.
// Pure (no SDK import), so the decision "telemetry is off" costs nothing and
// is testable on its own.
import { CodesiftError } from '@codesift/core';

export type OtlpProtocol = 'http/json' | 'http/protobuf' | 'grpc';

export type TelemetryConfig =
  | { enabled: false; reason: string }
  | {
      enabled: true;
      serviceName: string;
      protocol: OtlpProtocol;
      /** Full URL spans are sent to (…/v1/traces for HTTP); undefined: no OTLP export. */
      tracesUrl: string | undefined;
      /** OTEL_TRACES_EXPORTER names console: one JSON line per span on stderr. */
      console: boolean;
      /** Delay between two batch exports (OTEL_BSP_SCHEDULE_DELAY). */
      scheduledDelayMillis: number;
    };

export interface MetricsConfig {
  serviceName: string;
  /** CODESIFT_METRICS_PORT: a Prometheus scrape endpoint at http://host:port/metrics. */
  prometheus?: { host: string; port: number };
  /** OTLP push of the same metrics, every intervalMillis (OTEL_METRIC_EXPORT_INTERVAL). */
  otlp?: { protocol: OtlpProtocol; url: string; intervalMillis: number };
}

const PROTOCOLS: readonly OtlpProtocol[] = ['http/json', 'http/protobuf', 'grpc'];
const TRACE_EXPORTERS = ['otlp', 'console', 'none'] as const;

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

function sdkDisabled(env: NodeJS.ProcessEnv): boolean {
  return value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true';
}

/**
 * Where one signal goes over OTLP: OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT as
 * given, else OTEL_EXPORTER_OTLP_ENDPOINT plus /v1/<signal> (HTTP) or as is
 * (gRPC); undefined when neither is set. The protocol is the signal's own,
 * then the general one, then http/json.
 */
function otlpTarget(
  env: NodeJS.ProcessEnv,
  signal: 'traces' | 'metrics',
): { protocol: OtlpProtocol; url: string | undefined } {
  const SIGNAL = signal.toUpperCase();
  const protocolRaw =
    value(env, `OTEL_EXPORTER_OTLP_${SIGNAL}_PROTOCOL`) ??
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
  const signalEndpoint = value(env, `OTEL_EXPORTER_OTLP_${SIGNAL}_ENDPOINT`);
  if (signalEndpoint) {
    // The signal-specific variable is used exactly as given (OTLP spec).
    return {
      protocol,
      url: parseUrl(`OTEL_EXPORTER_OTLP_${SIGNAL}_ENDPOINT`, signalEndpoint).href,
    };
  }
  const endpoint = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!endpoint) return { protocol, url: undefined };
  const base = parseUrl('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint);
  // gRPC has no path; HTTP appends the signal path to the base endpoint.
  const url = protocol === 'grpc' ? base.href : `${base.href.replace(/\/+$/, '')}/v1/${signal}`;
  return { protocol, url };
}

/**
 * Tracing is on when an OTLP endpoint is configured or OTEL_TRACES_EXPORTER
 * names console, and neither OTEL_SDK_DISABLED=true nor
 * OTEL_TRACES_EXPORTER=none says otherwise. OTEL_SERVICE_NAME overrides the
 * process's own name. codesift sends OTLP/HTTP JSON unless
 * OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL picks http/protobuf or grpc.
 */
export function readTelemetryConfig(serviceName: string, env: NodeJS.ProcessEnv): TelemetryConfig {
  if (sdkDisabled(env)) return { enabled: false, reason: 'OTEL_SDK_DISABLED=true' };
  const exporters = (value(env, 'OTEL_TRACES_EXPORTER') ?? 'otlp')
    .toLowerCase()
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  const unknown = exporters.find((e) => !(TRACE_EXPORTERS as readonly string[]).includes(e));
  if (unknown) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `unsupported OTEL_TRACES_EXPORTER '${unknown}' (expected ${TRACE_EXPORTERS.join(', ')})`,
      { hint: 'e.g. OTEL_TRACES_EXPORTER=console to print spans without a collector' },
    );
  }
  if (exporters.includes('none')) return { enabled: false, reason: 'OTEL_TRACES_EXPORTER=none' };
  const console = exporters.includes('console');
  const target = otlpTarget(env, 'traces');
  const tracesUrl = exporters.includes('otlp') ? target.url : undefined;
  if (!tracesUrl && !console) return { enabled: false, reason: 'no OTEL_EXPORTER_OTLP_ENDPOINT' };
  const delay = Number(value(env, 'OTEL_BSP_SCHEDULE_DELAY') ?? 5000);
  return {
    enabled: true,
    serviceName: value(env, 'OTEL_SERVICE_NAME') ?? serviceName,
    protocol: target.protocol,
    tracesUrl,
    console,
    scheduledDelayMillis: Number.isFinite(delay) && delay >= 0 ? delay : 5000,
  };
}

function metricsPort(env: NodeJS.ProcessEnv): number | undefined {
  const raw = value(env, 'CODESIFT_METRICS_PORT');
  if (raw === undefined || raw === '0') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new CodesiftError('INVALID_ARGUMENT', `CODESIFT_METRICS_PORT is not a port: '${raw}'`, {
      hint: 'e.g. CODESIFT_METRICS_PORT=9464, or unset it to serve no Prometheus endpoint',
    });
  }
  return port;
}

/**
 * Metrics are served for Prometheus when CODESIFT_METRICS_PORT is set (on
 * CODESIFT_METRICS_HOST, default 127.0.0.1), and pushed over OTLP when
 * OTEL_METRICS_EXPORTER=otlp or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is set
 * (to the OTLP endpoint). Not by default with only OTEL_EXPORTER_OTLP_ENDPOINT:
 * that often names Jaeger, which takes no metrics and would answer every push
 * with an error. OTEL_SDK_DISABLED=true turns both off. Undefined: no metrics.
 */
export function readMetricsConfig(
  serviceName: string,
  env: NodeJS.ProcessEnv,
): MetricsConfig | undefined {
  if (sdkDisabled(env)) return undefined;
  const port = metricsPort(env);
  const exporter = value(env, 'OTEL_METRICS_EXPORTER')?.toLowerCase();
  const push =
    exporter === 'otlp' ||
    (exporter === undefined && value(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') !== undefined);
  const target = push ? otlpTarget(env, 'metrics') : undefined;
  const interval = Number(value(env, 'OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000);
  const config: MetricsConfig = {
    serviceName: value(env, 'OTEL_SERVICE_NAME') ?? serviceName,
    ...(port === undefined
      ? {}
      : { prometheus: { host: value(env, 'CODESIFT_METRICS_HOST') ?? '127.0.0.1', port } }),
    ...(target?.url === undefined
      ? {}
      : {
          otlp: {
            protocol: target.protocol,
            url: target.url,
            intervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
          },
        }),
  };
  return config.prometheus || config.otlp ? config : undefined;
}
