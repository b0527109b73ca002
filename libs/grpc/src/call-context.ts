import { contextFromTraceparent, traceparentFromContext } from '@codesift/telemetry';
import { type Metadata, status } from '@grpc/grpc-js';
import { type Context, SpanKind } from '@opentelemetry/api';
import { type RpcSpan, startRpcSpan } from './rpc-span.js';

/** What a handler knows about its call besides the request. */
export interface CallContext {
  /** Aborted when the client cancels, the connection drops or the deadline passes. */
  signal: AbortSignal;
  /** Milliseconds left until the call's deadline when the handler started; undefined without one. */
  deadlineMs: number | undefined;
  metadata: Metadata;
  /**
   * W3C traceparent of this call's server span (or of the caller, when no
   * tracing SDK runs); undefined when neither exists. Work the handler hands
   * to other processes (an index job on the bus) carries it on.
   */
  traceparent: string | undefined;
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
export function openCallContext(
  call: ServerCallLike,
  otel?: Context,
): { ctx: CallContext; dispose: () => void } {
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
    ctx: {
      signal: controller.signal,
      deadlineMs,
      metadata: call.metadata,
      traceparent: otel ? traceparentFromContext(otel)?.traceparent : undefined,
    },
    dispose: () => {
      clearTimeout(timer);
      call.removeListener('cancelled', onCancelled);
    },
  };
}

function metadataString(metadata: Metadata, key: string): string | undefined {
  const v = metadata.get(key)[0];
  return typeof v === 'string' && v ? v : undefined;
}

// Status codes that mean the server failed (OpenTelemetry's gRPC conventions);
// the others are the caller's problem and leave the server span unset.
const SERVER_FAULTS = new Set<number>([
  status.UNKNOWN,
  status.DEADLINE_EXCEEDED,
  status.UNIMPLEMENTED,
  status.INTERNAL,
  status.UNAVAILABLE,
  status.DATA_LOSS,
]);

/** A SERVER span (see startRpcSpan). */
export type ServerSpan = RpcSpan;

/**
 * Starts the SERVER span of one RPC, `<package.Service>/<Method>`, whose
 * parent is the caller's `traceparent` metadata. A no-op while no tracing
 * SDK is registered.
 */
export function startServerSpan(metadata: Metadata, service: string, method: string): ServerSpan {
  const parent = contextFromTraceparent(
    metadataString(metadata, 'traceparent'),
    metadataString(metadata, 'tracestate'),
  );
  return startRpcSpan(SpanKind.SERVER, parent, service, method, (code) => SERVER_FAULTS.has(code));
}
