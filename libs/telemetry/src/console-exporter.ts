// OTEL_TRACES_EXPORTER=console: spans printed without a collector. One JSON
// line per span on stderr, never stdout, where `codesift search --json`
// writes its answer and `codesift mcp` speaks its protocol. Loaded with the
// SDK only.
import { type ExportResult, ExportResultCode, hrTimeToMicroseconds } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'];
const STATUS = ['unset', 'ok', 'error'];

/** The line printed for one span. */
export function consoleSpanLine(span: ReadableSpan): string {
  const ctx = span.spanContext();
  return JSON.stringify({
    span: span.name,
    service: span.resource.attributes['service.name'],
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    kind: KINDS[span.kind] ?? String(span.kind),
    durationMs: Math.round(hrTimeToMicroseconds(span.duration)) / 1000,
    status: STATUS[span.status.code] ?? String(span.status.code),
    ...(span.status.message ? { error: span.status.message } : {}),
    attributes: span.attributes,
  });
}

export class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    process.stderr.write(spans.map((s) => `${consoleSpanLine(s)}\n`).join(''));
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}

  async forceFlush(): Promise<void> {}
}
