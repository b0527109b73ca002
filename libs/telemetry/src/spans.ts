// Small helpers for explicit spans. They use only the OpenTelemetry API, so
// they cost next to nothing while no SDK is registered.
import {
  type Attributes,
  type Span,
  type SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/** The tracer codesift's own spans come from. */
export function codesiftTracer(): Tracer {
  return trace.getTracer('codesift');
}

/** Marks `span` failed with `err` (status ERROR plus an exception event). */
export function recordError(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  else span.recordException(String(err));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: err instanceof Error ? err.message : String(err),
  });
}

export interface SpanOptions {
  kind?: SpanKind;
}

/**
 * Runs `fn` inside a new active span named `name` (a child of the active
 * span): ends it when `fn` settles, and records a thrown error on it.
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T> | T,
  options: SpanOptions = {},
): Promise<T> {
  return codesiftTracer().startActiveSpan(
    name,
    { attributes, ...(options.kind === undefined ? {} : { kind: options.kind }) },
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        recordError(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}
