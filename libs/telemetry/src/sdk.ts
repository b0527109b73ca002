// The heavy half of telemetry: the OpenTelemetry Node SDK and an OTLP trace
// exporter. Only start.ts imports this module, and only dynamically, once it
// knows tracing is on, so a process without an endpoint never loads it.
import {
  context,
  type DiagLogger,
  DiagLogLevel,
  diag,
  propagation,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { OtlpProtocol, TelemetryConfig } from './config.js';

export interface RunningSdk {
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

async function createExporter(protocol: OtlpProtocol, url: string): Promise<SpanExporter> {
  // Each exporter is its own package: load only the one in use.
  switch (protocol) {
    case 'http/json': {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
      return new OTLPTraceExporter({ url });
    }
    case 'http/protobuf': {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
      return new OTLPTraceExporter({ url });
    }
    case 'grpc': {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
      return new OTLPTraceExporter({ url });
    }
  }
}

const LOG_LEVELS: Record<string, DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};

/**
 * SDK diagnostics (a failed export, a dropped span) go to stderr, never
 * stdout: `codesift mcp` speaks its protocol on stdout.
 */
function stderrDiagLogger(): DiagLogger {
  const write =
    (level: string) =>
    (message: string, ...args: unknown[]) =>
      process.stderr.write(
        `opentelemetry ${level}: ${[message, ...args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a)))].join(' ')}\n`,
      );
  return {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    verbose: write('verbose'),
  };
}

export async function startSdk(
  config: Extract<TelemetryConfig, { enabled: true }>,
  env: NodeJS.ProcessEnv,
): Promise<RunningSdk> {
  const exporter = await createExporter(config.protocol, config.tracesUrl);
  const processor = new BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: config.scheduledDelayMillis,
  });
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    spanProcessors: [processor],
    // Traces only: no metric readers, no log processors, and no
    // auto-instrumentation (codesift adds explicit spans where they matter).
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    textMapPropagator: new W3CTraceContextPropagator(),
  });
  const level = LOG_LEVELS[env.OTEL_LOG_LEVEL?.trim().toLowerCase() ?? ''] ?? DiagLogLevel.WARN;
  diag.setLogger(stderrDiagLogger(), { logLevel: level, suppressOverrideMessage: true });
  sdk.start();
  let stopping: Promise<void> | undefined;
  return {
    flush: () => processor.forceFlush(),
    shutdown() {
      // Flushes what the batch processor still holds, then unregisters the
      // globals, so the API is a no-op again and a later start can register.
      stopping ??= sdk.shutdown().finally(() => {
        trace.disable();
        context.disable();
        propagation.disable();
        diag.disable();
      });
      return stopping;
    },
  };
}
