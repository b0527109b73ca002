// W3C Trace Context (https://www.w3.org/TR/trace-context/) at the transport
// level: parse, format and derive child spans, and convert to and from
// OpenTelemetry span contexts. Only the OpenTelemetry API is used (a no-op
// until a process registers an SDK), never the SDK itself.
import { randomBytes } from 'node:crypto';
import { createTraceState, isSpanContextValid, type SpanContext } from '@opentelemetry/api';

export interface TraceContext {
  /** 32 lowercase hex chars, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex chars, not all zero: the span this context points at. */
  readonly spanId: string;
  /** Trace flags byte; bit 0 is "sampled". */
  readonly flags: number;
  /** Opaque vendor state, forwarded unchanged. */
  readonly traceState?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * Parses a traceparent header; undefined when absent or invalid (the spec says
 * to ignore an invalid one and start a new trace rather than fail).
 */
export function parseTraceparent(
  header: string | undefined | null,
  traceState?: string,
): TraceContext | undefined {
  if (!header) return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  // Version ff is forbidden; version 00 has exactly four fields. Higher
  // versions may append fields, which we must tolerate but not interpret.
  if (version === 'ff') return undefined;
  if (version === '00' && rest !== undefined) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const ctx: TraceContext = {
    traceId: traceId!,
    spanId: spanId!,
    flags: Number.parseInt(flags!, 16),
  };
  return traceState ? { ...ctx, traceState } : ctx;
}

/** Formats as a version-00 traceparent. */
export function formatTraceparent(ctx: TraceContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.flags & 0xff).toString(16).padStart(2, '0')}`;
}

function randomHex(bytes: number, zero: string): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (hex !== zero) return hex;
  }
}

/** A new trace (sampled), for work that arrives without one. */
export function newRootTrace(): TraceContext {
  return { traceId: randomHex(16, ZERO_TRACE), spanId: randomHex(8, ZERO_SPAN), flags: 1 };
}

/** Same trace, new span id: the span of the work done on behalf of `parent`. */
export function childTrace(parent: TraceContext): TraceContext {
  return { ...parent, spanId: randomHex(8, ZERO_SPAN) };
}

/**
 * The OpenTelemetry span context of `ctx`, marked remote (it came over the
 * wire), so a span started under it links to the publisher's span.
 */
export function toSpanContext(ctx: TraceContext): SpanContext {
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    traceFlags: ctx.flags & 0xff,
    isRemote: true,
    ...(ctx.traceState ? { traceState: createTraceState(ctx.traceState) } : {}),
  };
}

/** The transport form of an OpenTelemetry span context; undefined when it is not valid. */
export function fromSpanContext(span: SpanContext): TraceContext | undefined {
  if (!isSpanContextValid(span)) return undefined;
  const state = span.traceState?.serialize();
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    flags: span.traceFlags,
    ...(state ? { traceState: state } : {}),
  };
}
