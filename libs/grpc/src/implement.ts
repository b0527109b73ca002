import { once } from 'node:events';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import {
  type handleServerStreamingCall,
  type handleUnaryCall,
  type Metadata,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { context } from '@opentelemetry/api';
import { type CallContext, openCallContext, startServerSpan } from './call-context.js';
import { toServiceError } from './errors.js';
import type { RequestOf, ResponseInitOf, ResponseOf } from './service-definition.js';

type MethodShape = GenServiceMethods[string];

export type UnaryHandler<M extends MethodShape> = (
  request: RequestOf<M>,
  ctx: CallContext,
) => Promise<ResponseInitOf<M> | ResponseOf<M>>;

export type ServerStreamingHandler<M extends MethodShape> = (
  request: RequestOf<M>,
  ctx: CallContext,
) => AsyncIterable<ResponseInitOf<M> | ResponseOf<M>>;

/** One handler per RPC of `T`, typed by its kind; client and bidi streaming are not used by codesift. */
export type ServiceHandlers<T extends GenServiceMethods> = {
  [K in keyof T]: T[K]['methodKind'] extends 'unary'
    ? UnaryHandler<T[K]>
    : T[K]['methodKind'] extends 'server_streaming'
      ? ServerStreamingHandler<T[K]>
      : never;
};

export interface ImplementOptions {
  /** Runs before each handler; throws to refuse the call (e.g. UNAUTHENTICATED). */
  authorize?: (metadata: Metadata) => void;
}

/**
 * Adapts promise- and iterator-returning handlers to grpc-js's callback
 * style: every thrown error becomes a status (see toServiceError), every call
 * gets a CallContext whose signal follows cancellation and the deadline, and
 * runs under a SERVER span whose parent is the caller's traceparent.
 */
export function implement<T extends GenServiceMethods>(
  service: GenService<T>,
  handlers: ServiceHandlers<T>,
  options: ImplementOptions = {},
): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const handler = (handlers as Record<string, unknown>)[method.localName];
    if (typeof handler !== 'function') {
      throw new Error(`no handler for ${service.typeName}.${method.name}`);
    }
    const rpc: RpcName = { service: service.typeName, method: method.name };
    if (method.methodKind === 'unary') {
      impl[method.localName] = unary(handler as UnaryHandler<MethodShape>, options, rpc);
    } else if (method.methodKind === 'server_streaming') {
      impl[method.localName] = serverStreaming(
        handler as ServerStreamingHandler<MethodShape>,
        options,
        rpc,
      );
    } else {
      throw new Error(
        `${method.methodKind} RPCs are not supported (${service.typeName}.${method.name})`,
      );
    }
  }
  return impl;
}

type AnyRequest = RequestOf<MethodShape>;

/** Full service name and method name, as the span is named: `codesift.v1.SearchService/Search`. */
interface RpcName {
  service: string;
  method: string;
}

function unary(
  handler: UnaryHandler<MethodShape>,
  options: ImplementOptions,
  rpc: RpcName,
): handleUnaryCall<AnyRequest, unknown> {
  return (call, callback) => {
    const span = startServerSpan(call.metadata, rpc.service, rpc.method);
    const { ctx, dispose } = openCallContext(call, span.context);
    const run = async () => {
      options.authorize?.(call.metadata);
      return handler(call.request, ctx);
    };
    context.with(span.context, run).then(
      (response) => {
        dispose();
        span.end(status.OK);
        callback(null, response);
      },
      (err: unknown) => {
        dispose();
        const serviceError = toServiceError(err);
        span.end(serviceError.code ?? status.UNKNOWN, err);
        callback(serviceError);
      },
    );
  };
}

function serverStreaming(
  handler: ServerStreamingHandler<MethodShape>,
  options: ImplementOptions,
  rpc: RpcName,
): handleServerStreamingCall<AnyRequest, unknown> {
  return (call) => {
    const span = startServerSpan(call.metadata, rpc.service, rpc.method);
    const { ctx, dispose } = openCallContext(call, span.context);
    const run = async () => {
      options.authorize?.(call.metadata);
      for await (const message of handler(call.request, ctx)) {
        if (call.cancelled || ctx.signal.aborted) return;
        // Respect backpressure: a slow reader must not make the server buffer without bound.
        if (!call.write(message)) await once(call, 'drain', { signal: ctx.signal });
      }
    };
    context.with(span.context, run).then(
      () => {
        dispose();
        span.end(call.cancelled ? status.CANCELLED : status.OK);
        if (!call.cancelled) call.end();
      },
      (err: unknown) => {
        dispose();
        const serviceError = toServiceError(err);
        span.end(call.cancelled ? status.CANCELLED : (serviceError.code ?? status.UNKNOWN), err);
        if (!call.cancelled) call.emit('error', serviceError);
      },
    );
  };
}
