// startTelemetry: the one call a process makes at startup. With no OTLP
// endpoint, no console exporter and no metrics port configured it returns a
// no-op handle without importing any SDK, so the OpenTelemetry API (used by
// the libraries) stays a no-op too.
import { readMetricsConfig, readTelemetryConfig } from './config.js';

export interface TelemetryOptions {
  /** service.name of this process, e.g. codesift-chunker; OTEL_SERVICE_NAME wins. */
  serviceName: string;
  /** Where OTEL_* variables are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Whether this process serves metrics (CODESIFT_METRICS_PORT, OTLP);
   * default true. One-shot commands and search worker threads pass false.
   */
  metrics?: boolean;
}

export interface Telemetry {
  /** Whether spans are recorded and exported. */
  readonly enabled: boolean;
  /** Why not, when disabled (e.g. 'no OTEL_EXPORTER_OTLP_ENDPOINT'). */
  readonly reason?: string;
  readonly serviceName?: string;
  /** Where spans go over OTLP, when they do. */
  readonly tracesUrl?: string;
  /** Whether metrics are recorded (a Prometheus endpoint, OTLP push, or both). */
  readonly metricsEnabled: boolean;
  /** The Prometheus scrape URL, when CODESIFT_METRICS_PORT is set. */
  readonly prometheusUrl?: string;
  /** Exports the spans ended so far (and pushes metrics). */
  flush(): Promise<void>;
  /** Flushes and stops; call before the process exits. Never rejects. */
  shutdown(): Promise<void>;
}

interface Stoppable {
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: Telemetry | undefined;
let activeOptions: { serviceName: string; env: NodeJS.ProcessEnv } | undefined;

/**
 * Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT (or the traces endpoint)
 * is set or OTEL_TRACES_EXPORTER names console, and metrics when
 * CODESIFT_METRICS_PORT or an OTLP endpoint is set (see config.ts). One per
 * process: a second call while one runs returns it.
 */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  if (active) return active;
  const env = options.env ?? process.env;
  const config = readTelemetryConfig(options.serviceName, env);
  const metricsConfig =
    options.metrics === false ? undefined : readMetricsConfig(options.serviceName, env);
  if (!config.enabled && !metricsConfig) {
    return {
      enabled: false,
      reason: config.reason,
      metricsEnabled: false,
      flush: async () => {},
      shutdown: async () => {},
    };
  }
  const parts: Stoppable[] = [];
  let prometheusUrl: string | undefined;
  try {
    if (config.enabled) {
      const { startSdk } = await import('./sdk.js');
      parts.push(await startSdk(config, env));
    }
    if (metricsConfig) {
      const { startMetricsSdk } = await import('./metrics-sdk.js');
      const running = await startMetricsSdk(metricsConfig, env);
      prometheusUrl = running.prometheusUrl;
      parts.push(running);
    }
  } catch (err) {
    // A metrics port already taken must not leave tracing registered.
    await Promise.allSettled(parts.map((p) => p.shutdown()));
    throw err;
  }
  const handle: Telemetry = {
    enabled: config.enabled,
    ...(config.enabled ? {} : { reason: config.reason }),
    serviceName: config.enabled ? config.serviceName : metricsConfig?.serviceName,
    ...(config.enabled && config.tracesUrl ? { tracesUrl: config.tracesUrl } : {}),
    metricsEnabled: metricsConfig !== undefined,
    ...(prometheusUrl ? { prometheusUrl } : {}),
    flush: async () => {
      await Promise.all(parts.map((p) => p.flush()));
    },
    async shutdown() {
      try {
        await Promise.all(parts.map((p) => p.shutdown()));
      } catch (err) {
        // A collector that is gone at exit must not turn a clean stop into a failure.
        process.stderr.write(
          `opentelemetry: could not flush at shutdown: ${err instanceof Error ? err.message : String(err)}\n`,
        );
      } finally {
        if (active === handle) {
          active = undefined;
          activeOptions = undefined;
        }
      }
    },
  };
  active = handle;
  activeOptions = { serviceName: options.serviceName, env };
  return handle;
}

/**
 * What a worker thread of this process passes to its own startTelemetry so
 * its spans join this process's traces (the SDK is per thread): the service
 * name and the OTEL_* variables, traces only. Undefined while tracing is off.
 */
export function telemetryForThreads(): TelemetryOptions | undefined {
  if (!active?.enabled || !activeOptions) return undefined;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(activeOptions.env)) if (k.startsWith('OTEL_')) env[k] = v;
  return { serviceName: activeOptions.serviceName, env, metrics: false };
}
