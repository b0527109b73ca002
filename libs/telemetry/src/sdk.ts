// The heavy half of telemetry: the OpenTelemetry Node SDK and an OTLP trace
// exporter. Only start.ts imports this module, and only dynamically, once it
// knows tracing is on, so a process without an endpoint never loads it.
import { context, diag, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { OtlpProtocol, TelemetryConfig } from './config.js';
import { StderrSpanExporter } from './console-exporter.js';
import { installDiagLogger } from './diag.js';

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

export async function startSdk(
  config: Extract<TelemetryConfig, { enabled: true }>,
  env: NodeJS.ProcessEnv,
): Promise<RunningSdk> {
  const processors: SpanProcessor[] = [];
  if (config.tracesUrl) {
    processors.push(
      new BatchSpanProcessor({
        exporter: await createExporter(config.protocol, config.tracesUrl),
        scheduledDelayMillis: config.scheduledDelayMillis,
      }),
    );
  }
  // Printed as each span ends: a console is read live, not in batches.
  if (config.console)
    processors.push(new SimpleSpanProcessor({ exporter: new StderrSpanExporter() }));
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    spanProcessors: processors,
    // Traces only (metrics-sdk.ts runs the meter provider): no metric
    // readers, no log processors, and no auto-instrumentation (codesift adds
    // explicit spans where they matter).
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    textMapPropagator: new W3CTraceContextPropagator(),
  });
  installDiagLogger(env);
  sdk.start();
  let stopping: Promise<void> | undefined;
  return {
    flush: async () => {
      await Promise.all(processors.map((p) => p.forceFlush()));
    },
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
