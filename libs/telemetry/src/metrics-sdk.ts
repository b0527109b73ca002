// The heavy half of metrics: the OpenTelemetry metrics SDK with a
// Prometheus scrape endpoint and/or an OTLP push reader. Only start.ts
// imports this module, and only dynamically, once metrics are configured.
import { metrics } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  type IMetricReader,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import type { MetricsConfig, OtlpProtocol } from './config.js';
import { installDiagLogger } from './diag.js';

export interface RunningMetrics {
  /** http://host:port/metrics, when a Prometheus endpoint is served. */
  prometheusUrl: string | undefined;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

async function createExporter(protocol: OtlpProtocol, url: string): Promise<PushMetricExporter> {
  // Each exporter is its own package: load only the one in use.
  switch (protocol) {
    case 'http/json': {
      const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
      return new OTLPMetricExporter({ url });
    }
    case 'http/protobuf': {
      const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-proto');
      return new OTLPMetricExporter({ url });
    }
    case 'grpc': {
      const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-grpc');
      return new OTLPMetricExporter({ url });
    }
  }
}

/** Serves /metrics until shutdown; rejects when the port cannot be bound. */
async function startPrometheus(host: string, port: number): Promise<IMetricReader> {
  const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
  return new Promise((resolve, reject) => {
    const exporter: IMetricReader = new PrometheusExporter({ host, port }, (err) =>
      err
        ? reject(new Error(`metrics endpoint ${host}:${port}: ${err.message}`))
        : resolve(exporter),
    );
  });
}

export async function startMetricsSdk(
  config: MetricsConfig,
  env: NodeJS.ProcessEnv,
): Promise<RunningMetrics> {
  installDiagLogger(env);
  const readers: IMetricReader[] = [];
  if (config.prometheus) {
    readers.push(await startPrometheus(config.prometheus.host, config.prometheus.port));
  }
  if (config.otlp) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: await createExporter(config.otlp.protocol, config.otlp.url),
        exportIntervalMillis: config.otlp.intervalMillis,
        exportTimeoutMillis: Math.min(30_000, config.otlp.intervalMillis),
      }),
    );
  }
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    readers,
  });
  metrics.setGlobalMeterProvider(provider);
  let stopping: Promise<void> | undefined;
  return {
    prometheusUrl: config.prometheus
      ? `http://${config.prometheus.host}:${config.prometheus.port}/metrics`
      : undefined,
    flush: () => provider.forceFlush(),
    shutdown() {
      // A last push of what the OTLP reader holds, then the endpoint closes
      // and the API is a no-op again, so a later start can register.
      stopping ??= provider.shutdown().finally(() => metrics.disable());
      return stopping;
    },
  };
}
