// Converts between the W3C `traceparent`/`tracestate` strings codesift
// carries (NATS headers, gRPC metadata) and OpenTelemetry contexts. Uses the
// W3C propagator directly rather than the global one, so the strings travel
// even in a process that has no SDK (the context is then passed through).
import {
  type Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const w3c = new W3CTraceContextPropagator();

export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/**
 * The context whose remote parent is `traceparent` (with its `tracestate`),
 * on top of `base` (default: the root context, so an unrelated active span
 * does not leak in). An absent or invalid traceparent gives `base` unchanged.
 */
export function contextFromTraceparent(
  traceparent: string | undefined | null,
  tracestate?: string | null,
  base: Context = ROOT_CONTEXT,
): Context {
  if (!traceparent) return base;
  const carrier: Record<string, string> = { traceparent };
  if (tracestate) carrier.tracestate = tracestate;
  return w3c.extract(base, carrier, defaultTextMapGetter);
}

/** The traceparent (and tracestate) of the span in `ctx`; undefined when it has none. */
export function traceparentFromContext(ctx: Context = context.active()): TraceHeaders | undefined {
  const carrier: Record<string, string> = {};
  w3c.inject(ctx, carrier, defaultTextMapSetter);
  if (!carrier.traceparent) return undefined;
  return carrier.tracestate
    ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
    : { traceparent: carrier.traceparent };
}

/**
 * Runs `fn` with the span `headers` name as its remote parent (no parent
 * when undefined), e.g. in a worker thread answering for another thread.
 */
export function withRemoteParent<T>(headers: TraceHeaders | undefined, fn: () => T): T {
  return context.with(contextFromTraceparent(headers?.traceparent, headers?.tracestate), fn);
}
