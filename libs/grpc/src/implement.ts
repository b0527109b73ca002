import { once } from 'node:events';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type {
  handleServerStreamingCall,
  handleUnaryCall,
  Metadata,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { type CallContext, openCallContext } from './call-context.js';
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
 * gets a CallContext whose signal follows cancellation and the deadline.
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
    if (method.methodKind === 'unary') {
      impl[method.localName] = unary(handler as UnaryHandler<MethodShape>, options);
    } else if (method.methodKind === 'server_streaming') {
      impl[method.localName] = serverStreaming(
        handler as ServerStreamingHandler<MethodShape>,
        options,
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

function unary(
  handler: UnaryHandler<MethodShape>,
  options: ImplementOptions,
): handleUnaryCall<AnyRequest, unknown> {
  return (call, callback) => {
    const { ctx, dispose } = openCallContext(call);
    const run = async () => {
      options.authorize?.(call.metadata);
      return handler(call.request, ctx);
    };
    run().then(
      (response) => {
        dispose();
        callback(null, response);
      },
      (err: unknown) => {
        dispose();
        callback(toServiceError(err));
      },
    );
  };
}

function serverStreaming(
  handler: ServerStreamingHandler<MethodShape>,
  options: ImplementOptions,
): handleServerStreamingCall<AnyRequest, unknown> {
  return (call) => {
    const { ctx, dispose } = openCallContext(call);
    const run = async () => {
      options.authorize?.(call.metadata);
      for await (const message of handler(call.request, ctx)) {
        if (call.cancelled || ctx.signal.aborted) return;
        // Respect backpressure: a slow reader must not make the server buffer without bound.
        if (!call.write(message)) await once(call, 'drain', { signal: ctx.signal });
      }
    };
    run().then(
      () => {
        dispose();
        if (!call.cancelled) call.end();
      },
      (err: unknown) => {
        dispose();
        if (!call.cancelled) call.emit('error', toServiceError(err));
      },
    );
  };
}
