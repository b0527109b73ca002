/**
 * Runs one retrieval side (keyword or vector) under the request's deadline
 * and cancellation. A side that throws or is still running at the deadline
 * is dropped with a reason for `SearchResponse.degraded`, so a slow or
 * broken backend degrades the answer instead of failing it; only the
 * caller's own cancellation rejects.
 */
import { errorMessage } from '@codesift/core';

export type SideOutcome<T> =
  | { ok: true; value: T; ms: number }
  /** `error` is what the side threw; undefined for a timeout. */
  | { ok: false; reason: string; error?: unknown; ms: number };

export interface SideLimits {
  /** performance.now() value after which the side is dropped; undefined: no deadline. */
  deadlineAt?: number;
  /** The caller's cancellation; aborting rejects with its reason. */
  signal?: AbortSignal;
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
  return new Promise<SideOutcome<T>>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      controller.abort(limits.signal?.reason);
      finish(() => reject(limits.signal?.reason ?? new Error('search cancelled')));
    };
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
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
        finish(() => resolve({ ok: false, reason: 'timeout', ms: elapsed() }));
      }, remaining);
    }
    let promise: Promise<T>;
    try {
      promise = work(controller.signal);
    } catch (err) {
      promise = Promise.reject(err);
    }
    promise.then(
      (value) => finish(() => resolve({ ok: true, value, ms: elapsed() })),
      (err: unknown) =>
        finish(() => resolve({ ok: false, reason: errorMessage(err), error: err, ms: elapsed() })),
    );
  });
}
