/**
 * Runs one retrieval side (keyword or vector) under the request's deadline
 * and cancellation. A side that throws or is still running at the deadline
 * is dropped with a reason for `SearchResponse.degraded`, so a slow or
 * broken backend degrades the answer instead of failing it; only the
 * caller's own cancellation rejects. Each side is a span (`search.<name>`,
 * a child of the active span, e.g. the gRPC server span), so a trace shows
 * the fan-out and which side was slow or dropped; none without an SDK
 * (tracing.ts).
 */
import { errorMessage } from '@codesift/core';
import type * as OtelApi from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import { tracingApi } from './tracing.js';

export type SideOutcome<T> =
  | { ok: true; value: T; ms: number }
  /** `error` is what the side threw; undefined for a timeout. */
  | { ok: false; reason: string; error?: unknown; ms: number };

export interface SideLimits {
  /** performance.now() value after which the side is dropped; undefined: no deadline. */
  deadlineAt?: number;
  /** The caller's cancellation; aborting rejects with its reason. */
  signal?: AbortSignal;
  /** Which side, e.g. 'keyword' or 'vector': names the span `search.<name>`. */
  name?: string;
}

/** Ends the side's span with how the side ended. */
function endSpan(
  traced: { api: typeof OtelApi; span: Span } | undefined,
  outcome: 'ok' | 'timeout' | 'failed' | 'cancelled',
  err?: unknown,
) {
  if (traced === undefined) return;
  const { api, span } = traced;
  span.setAttribute('codesift.search.side.outcome', outcome);
  if (outcome === 'failed' || outcome === 'timeout') {
    if (err !== undefined) span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({
      code: api.SpanStatusCode.ERROR,
      message: outcome === 'timeout' ? 'dropped at the deadline' : errorMessage(err),
    });
  }
  span.end();
}

/**
 * `work` receives a signal that aborts when the side is dropped (deadline)
 * or the caller cancels, so an HTTP embedder can stop its request.
 */
export function runSide<T>(
  work: (signal: AbortSignal) => Promise<T>,
  limits: SideLimits,
): Promise<SideOutcome<T>> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const controller = new AbortController();
  const name = limits.name ?? 'side';
  const api = tracingApi();
  const traced = api && {
    api,
    span: api.trace
      .getTracer('@codesift/search')
      .startSpan(`search.${name}`, { attributes: { 'codesift.search.side': name } }),
  };
  return new Promise<SideOutcome<T>>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      controller.abort(limits.signal?.reason);
      finish(() => reject(limits.signal?.reason ?? new Error('search cancelled')), 'cancelled');
    };
    const finish = (
      settle: () => void,
      outcome: 'ok' | 'timeout' | 'failed' | 'cancelled',
      err?: unknown,
    ) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      endSpan(traced, outcome, err);
      settle();
    };
    if (limits.signal?.aborted) {
      onAbort();
      return;
    }
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    if (limits.deadlineAt !== undefined) {
      const remaining = Math.max(0, limits.deadlineAt - performance.now());
      timer = setTimeout(() => {
        controller.abort(new Error('deadline exceeded'));
        finish(() => resolve({ ok: false, reason: 'timeout', ms: elapsed() }), 'timeout');
      }, remaining);
    }
    let promise: Promise<T>;
    try {
      // The side's own work (embedding, a backend call) runs with the side's span active.
      if (traced) {
        const { context, trace } = traced.api;
        promise = context.with(trace.setSpan(context.active(), traced.span), () =>
          work(controller.signal),
        );
      } else {
        promise = work(controller.signal);
      }
    } catch (err) {
      promise = Promise.reject(err);
    }
    promise.then(
      (value) => finish(() => resolve({ ok: true, value, ms: elapsed() }), 'ok'),
      (err: unknown) =>
        finish(
          () => resolve({ ok: false, reason: errorMessage(err), error: err, ms: elapsed() }),
          'failed',
          err,
        ),
    );
  });
}
