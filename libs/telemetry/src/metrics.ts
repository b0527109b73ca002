// codesift's metric instruments, on the OpenTelemetry API only: without a
// meter provider (no CODESIFT_METRICS_PORT, no OTLP endpoint) every record
// is a no-op. Names are OpenTelemetry's; the Prometheus endpoint shows them
// with dots as underscores and counters ending in _total; durations are in
// seconds (docs/OBSERVABILITY.md lists them).
import {
  type Attributes,
  type Counter,
  type Histogram,
  type MeterProvider,
  metrics,
  type ObservableGauge,
} from '@opentelemetry/api';

/** Seconds, from a few milliseconds (a keyword search) to minutes (a slow LLM batch). */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

interface Instruments {
  queueDepth: ObservableGauge;
  queueWait: Histogram;
  stageDuration: Histogram;
  messages: Counter;
  chunks: Counter;
  files: Counter;
  embedDuration: Histogram;
  llmDuration: Histogram;
  queryDuration: Histogram;
  degraded: Counter;
}

function create(provider: MeterProvider): Instruments {
  const meter = provider.getMeter('codesift');
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, {
      description,
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS },
    });
  return {
    queueDepth: meter.createObservableGauge('codesift.queue.depth', {
      description:
        'Messages waiting for a stage or being worked on (JetStream pending + ack pending)',
    }),
    queueWait: seconds(
      'codesift.queue.wait',
      'Age of a message when a stage took it: time from publish to this delivery',
    ),
    stageDuration: seconds('codesift.stage.duration', 'Time a stage spent on one message'),
    messages: meter.createCounter('codesift.stage.messages', {
      description: 'Messages a stage settled, by outcome (acked, retried, deadLettered)',
    }),
    chunks: meter.createCounter('codesift.chunks', {
      description: 'Chunks a stage handled (rate = chunks/s)',
    }),
    files: meter.createCounter('codesift.files', { description: 'Files a stage handled' }),
    embedDuration: seconds('codesift.embed.duration', 'One embedding model call'),
    llmDuration: seconds('codesift.llm.duration', 'One LLM chat call'),
    queryDuration: seconds('codesift.query.duration', 'One search, as the server answered it'),
    degraded: meter.createCounter('codesift.search.degraded', {
      description: 'Searches answered without a side (failed or past the deadline), per side',
    }),
  };
}

let cached: { provider: MeterProvider; instruments: Instruments } | undefined;

/**
 * The instruments of the meter provider registered now. Looked up per use,
 * not at load: a provider registered later (startTelemetry runs after the
 * libraries are imported) must still get the records.
 */
export function codesiftMetrics(): Instruments {
  const provider = metrics.getMeterProvider();
  if (cached?.provider !== provider) cached = { provider, instruments: create(provider) };
  return cached.instruments;
}

/** Seconds since `startMs` (a performance.now() reading), for a histogram. */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

/**
 * Reports `read()` as codesift.queue.depth with `attributes` at every
 * collection, until the returned function is called. A failed read skips
 * that collection.
 */
export function observeQueueDepth(attributes: Attributes, read: () => Promise<number>): () => void {
  const gauge = codesiftMetrics().queueDepth;
  const callback = async (result: { observe(value: number, attributes?: Attributes): void }) => {
    try {
      result.observe(await read(), attributes);
    } catch {
      // NATS unreachable this time: no sample rather than a wrong one.
    }
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}

/** The kind of side a `degraded` entry names ("vector: timeout" → vector). */
export function degradedSide(entry: string): string {
  const colon = entry.indexOf(':');
  return (colon > 0 ? entry.slice(0, colon) : entry).trim().split(/\s+/)[0] ?? 'other';
}
