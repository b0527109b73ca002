// startTelemetry: the one call a process makes at startup. With no OTLP
// endpoint configured it returns a no-op handle without importing the SDK, so
// the OpenTelemetry API (used by the libraries) stays a no-op too.
import { readTelemetryConfig } from './config.js';

export interface TelemetryOptions {
  /** service.name of this process, e.g. codesift-chunker; OTEL_SERVICE_NAME wins. */
  serviceName: string;
  /** Where OTEL_* variables are read; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface Telemetry {
  /** Whether spans are recorded and exported. */
  readonly enabled: boolean;
  /** Why not, when disabled (e.g. 'no OTEL_EXPORTER_OTLP_ENDPOINT'). */
  readonly reason?: string;
  readonly serviceName?: string;
  /** Where spans go, when enabled. */
  readonly tracesUrl?: string;
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Flushes and stops; call before the process exits. Never rejects. */
  shutdown(): Promise<void>;
}

let active: Telemetry | undefined;

/**
 * Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and OTEL_SDK_DISABLED is not
 * true). One SDK per process: a second call while one runs returns it.
 */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  if (active) return active;
  const env = options.env ?? process.env;
  const config = readTelemetryConfig(options.serviceName, env);
  if (!config.enabled) {
    return {
      enabled: false,
      reason: config.reason,
      flush: async () => {},
      shutdown: async () => {},
    };
  }
  const { startSdk } = await import('./sdk.js');
  const sdk = await startSdk(config, env);
  const handle: Telemetry = {
    enabled: true,
    serviceName: config.serviceName,
    tracesUrl: config.tracesUrl,
    flush: () => sdk.flush(),
    async shutdown() {
      try {
        await sdk.shutdown();
      } catch (err) {
        // A collector that is gone at exit must not turn a clean stop into a failure.
        process.stderr.write(
          `opentelemetry: could not flush spans at shutdown: ${err instanceof Error ? err.message : String(err)}\n`,
        );
      } finally {
        if (active === handle) active = undefined;
      }
    },
  };
  active = handle;
  return handle;
}
