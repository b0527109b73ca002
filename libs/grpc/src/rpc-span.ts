import { recordError } from '@codesift/telemetry';
import { status } from '@grpc/grpc-js';
import { type Context, type SpanKind, trace } from '@opentelemetry/api';

/** One RPC's span, client or server side. */
export interface RpcSpan {
  /** The context with this span active: the handler runs there, or it goes out as traceparent. */
  readonly context: Context;
  /** Ends the span with the call's outcome: the gRPC status code, and the error if any. */
  end(code: number, err?: unknown): void;
}

/**
 * Starts the span `<package.Service>/<Method>` under `parent` (a no-op while
 * no tracing SDK is registered), with OpenTelemetry's gRPC attributes. A
 * failed call always gets its `error.type`; `isFault` says which status
 * codes also mark the span as an error (a server's own faults only, since
 * a bad request is the caller's problem; every failure on a client).
 */
export function startRpcSpan(
  kind: SpanKind.CLIENT | SpanKind.SERVER,
  parent: Context,
  service: string,
  method: string,
  isFault: (code: number) => boolean,
): RpcSpan {
  const span = trace
    .getTracer('@codesift/grpc')
    .startSpan(
      `${service}/${method}`,
      { kind, attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method } },
      parent,
    );
  return {
    context: trace.setSpan(parent, span),
    end(code, err) {
      span.setAttribute('rpc.grpc.status_code', code);
      if (err !== undefined) {
        span.setAttribute('error.type', status[code] ?? String(code));
        if (isFault(code)) recordError(span, err);
      }
      span.end();
    },
  };
}
