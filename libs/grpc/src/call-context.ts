import type { Metadata } from '@grpc/grpc-js';

/** What a handler knows about its call besides the request. */
export interface CallContext {
  /** Aborted when the client cancels, the connection drops or the deadline passes. */
  signal: AbortSignal;
  /** Milliseconds left until the call's deadline when the handler started; undefined without one. */
  deadlineMs: number | undefined;
  metadata: Metadata;
}

/** The parts of a grpc-js server call this module needs (unary and streaming calls alike). */
export interface ServerCallLike {
  metadata: Metadata;
  cancelled: boolean;
  getDeadline(): Date | number;
  on(event: 'cancelled', listener: () => void): unknown;
  removeListener(event: 'cancelled', listener: () => void): unknown;
}

/**
 * Opens the context of one call. grpc-js answers DEADLINE_EXCEEDED by itself
 * when the deadline passes, but the handler would keep working; the signal
 * lets the engine stop too. The deadline aborts with a TimeoutError and a
 * cancellation with an AbortError, so a handler that rethrows `signal.reason`
 * reports the right status. `dispose` must run when the handler is done.
 */
export function openCallContext(call: ServerCallLike): { ctx: CallContext; dispose: () => void } {
  const controller = new AbortController();
  const deadline = call.getDeadline();
  const deadlineAt = deadline instanceof Date ? deadline.getTime() : deadline;
  const deadlineMs = Number.isFinite(deadlineAt) ? Math.max(0, deadlineAt - Date.now()) : undefined;
  const onCancelled = () =>
    controller.abort(new DOMException('the call was cancelled', 'AbortError'));
  call.on('cancelled', onCancelled);
  const timer =
    deadlineMs === undefined
      ? undefined
      : setTimeout(
          () => controller.abort(new DOMException('deadline exceeded', 'TimeoutError')),
          deadlineMs,
        );
  timer?.unref();
  if (call.cancelled) onCancelled();
  return {
    ctx: { signal: controller.signal, deadlineMs, metadata: call.metadata },
    dispose: () => {
      clearTimeout(timer);
      call.removeListener('cancelled', onCancelled);
    },
  };
}
