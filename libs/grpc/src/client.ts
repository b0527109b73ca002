import { create } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { IndexService, SearchService, SymbolService } from '@codesift/proto';
import { traceparentFromContext } from '@codesift/telemetry';
import {
  type CallOptions,
  type ChannelCredentials,
  type ChannelOptions,
  type Client,
  type ClientReadableStream,
  getClientChannel,
  credentials as grpcCredentials,
  Metadata,
  makeClientConstructor,
  type ServiceClientConstructor,
  type ServiceDefinition,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { context, SpanKind } from '@opentelemetry/api';
import { service as healthServiceDefinition, type ServingStatus } from 'grpc-health-check';
import { HEALTH_SERVICE_NAME } from './health.js';
import { type RpcSpan, startRpcSpan } from './rpc-span.js';
import {
  grpcServiceDefinition,
  type RequestInitOf,
  type ResponseOf,
} from './service-definition.js';

export interface ClientOptions {
  /** Sent as `authorization: Bearer <token>` on every call. */
  token?: string;
  /** Default: insecure (plaintext), as `codesift serve` listens. */
  credentials?: ChannelCredentials;
  channelOptions?: ChannelOptions;
}

export interface RpcOptions {
  /** Milliseconds the call may take; the server sees the same deadline. */
  deadlineMs?: number;
  /** Cancels the call. */
  signal?: AbortSignal;
  metadata?: Metadata;
}

/** Promise (unary) and async-iterator (server streaming) methods for each RPC of `T`. */
export type TypedClient<T extends GenServiceMethods> = {
  [K in keyof T]: T[K]['methodKind'] extends 'unary'
    ? (request: RequestInitOf<T[K]>, options?: RpcOptions) => Promise<ResponseOf<T[K]>>
    : T[K]['methodKind'] extends 'server_streaming'
      ? (request: RequestInitOf<T[K]>, options?: RpcOptions) => AsyncIterable<ResponseOf<T[K]>>
      : never;
};

const constructors = new WeakMap<object, ServiceClientConstructor>();

/** The grpc-js client class of a generated service (callback API), built from the same definition as the server. */
export function clientConstructor<T extends GenServiceMethods>(
  service: GenService<T>,
): ServiceClientConstructor {
  let ctor = constructors.get(service);
  if (!ctor) {
    ctor = makeClientConstructor(
      grpcServiceDefinition(service) as unknown as ServiceDefinition,
      service.typeName,
    );
    constructors.set(service, ctor);
  }
  return ctor;
}

/**
 * Wraps a grpc-js client of `service` in typed promise / async-iterator
 * methods. `raw` must have been made by clientConstructor(service). Each call
 * runs under a CLIENT span (a child of the active span) whose traceparent
 * goes out as metadata, so the server's span joins the caller's trace.
 */
export function typedClient<T extends GenServiceMethods>(
  service: GenService<T>,
  raw: Client,
  options: Pick<ClientOptions, 'token'> = {},
): TypedClient<T> {
  const out: Record<string, unknown> = {};
  const callable = raw as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of service.methods) {
    const fn = callable[method.localName]!.bind(raw);
    const prepare = (request: unknown, opts: RpcOptions, span: ClientSpan) => {
      const metadata = opts.metadata?.clone() ?? new Metadata();
      if (options.token) metadata.set('authorization', `Bearer ${options.token}`);
      // A traceparent the caller set explicitly wins over the active span.
      if (metadata.get('traceparent').length === 0) {
        const headers = traceparentFromContext(span.context);
        if (headers) {
          metadata.set('traceparent', headers.traceparent);
          if (headers.tracestate) metadata.set('tracestate', headers.tracestate);
        }
      }
      const callOptions: CallOptions = {};
      if (opts.deadlineMs !== undefined) callOptions.deadline = Date.now() + opts.deadlineMs;
      return [create(method.input, request as never), metadata, callOptions] as const;
    };
    if (method.methodKind === 'unary') {
      out[method.localName] = (request: unknown, opts: RpcOptions = {}) => {
        const span = startClientSpan(service.typeName, method.name);
        return cancellable(opts.signal, (done) => fn(...prepare(request, opts, span), done)).then(
          (response) => {
            span.end(status.OK);
            return response;
          },
          (err: unknown) => {
            span.end((err as Partial<ServiceError>)?.code ?? status.UNKNOWN, err);
            throw err;
          },
        );
      };
    } else if (method.methodKind === 'server_streaming') {
      out[method.localName] = (request: unknown, opts: RpcOptions = {}) =>
        tracedStream(service.typeName, method.name, (span) =>
          streamResponses(
            () => fn(...prepare(request, opts, span)) as ClientReadableStream<unknown>,
            opts,
          ),
        );
    }
  }
  return out as TypedClient<T>;
}

type ClientSpan = RpcSpan;

/** Starts the CLIENT span `<package.Service>/<Method>` under the active span (a no-op without an SDK). */
function startClientSpan(serviceName: string, methodName: string): ClientSpan {
  // Every failure marks a client span as an error: the caller did not get its answer.
  return startRpcSpan(SpanKind.CLIENT, context.active(), serviceName, methodName, () => true);
}

/**
 * A server stream under a CLIENT span that lasts until the stream ends. A
 * consumer that stops early cancels the call; that is not an error.
 */
async function* tracedStream(
  serviceName: string,
  methodName: string,
  open: (span: ClientSpan) => AsyncIterable<unknown>,
): AsyncGenerator<unknown> {
  const span = startClientSpan(serviceName, methodName);
  let outcome: { code: number; err?: unknown } = { code: status.CANCELLED };
  try {
    yield* open(span);
    outcome = { code: status.OK };
  } catch (err) {
    outcome = { code: (err as Partial<ServiceError>)?.code ?? status.UNKNOWN, err };
    throw err;
  } finally {
    span.end(outcome.code, outcome.err);
  }
}

/** A unary call as a promise; `signal` cancels it (the promise then rejects with CANCELLED). */
function cancellable<T>(
  signal: AbortSignal | undefined,
  start: (done: (err: ServiceError | null, res?: T) => void) => unknown,
): Promise<T> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => call.cancel();
    const call = start((err, res) => {
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(res as T);
    }) as { cancel(): void };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function* streamResponses(
  start: () => ClientReadableStream<unknown>,
  opts: RpcOptions,
): AsyncGenerator<unknown> {
  opts.signal?.throwIfAborted();
  const call = start();
  const onAbort = () => call.cancel();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const message of call) yield message;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    // Stops the server's stream when the consumer breaks out early; a no-op after the end.
    call.cancel();
  }
}

export type HealthStatus = ServingStatus | 'SERVICE_UNKNOWN';

/** Clients of every codesift service over one channel. */
export interface CodesiftClient {
  search: TypedClient<typeof SearchService.method>;
  symbols: TypedClient<typeof SymbolService.method>;
  index: TypedClient<typeof IndexService.method>;
  /** grpc.health.v1 Check for `service` ('' for the whole server). */
  checkHealth(service?: string, options?: RpcOptions): Promise<HealthStatus>;
  /** grpc.health.v1 Watch: the current status, then each change, until cancelled. */
  watchHealth(service?: string, options?: RpcOptions): AsyncIterable<HealthStatus>;
  close(): void;
}

/** Connects to a codesift gRPC server at `address` (`host:port`). */
export function connectCodesift(address: string, options: ClientOptions = {}): CodesiftClient {
  const creds = options.credentials ?? grpcCredentials.createInsecure();
  const SearchClient = clientConstructor(SearchService);
  const first = new SearchClient(address, creds, options.channelOptions);
  // The other clients share the first one's channel: one connection, one close.
  const shared = { ...options.channelOptions, channelOverride: getClientChannel(first) };
  const symbolsRaw = new (clientConstructor(SymbolService))(address, creds, shared);
  const indexRaw = new (clientConstructor(IndexService))(address, creds, shared);
  const healthRaw = new (healthClientConstructor())(address, creds, shared);
  return {
    search: typedClient(SearchService, first, options),
    symbols: typedClient(SymbolService, symbolsRaw, options),
    index: typedClient(IndexService, indexRaw, options),
    checkHealth: (service = '', opts = {}) => checkHealth(healthRaw, service, opts),
    watchHealth: (service = '', opts = {}) => watchHealth(healthRaw, service, opts),
    close: () => first.close(),
  };
}

let healthCtor: ServiceClientConstructor | undefined;
function healthClientConstructor(): ServiceClientConstructor {
  healthCtor ??= makeClientConstructor(
    healthServiceDefinition as unknown as ServiceDefinition,
    HEALTH_SERVICE_NAME,
  );
  return healthCtor;
}

type HealthMethod = (...args: unknown[]) => unknown;

function healthMethod(raw: Client, name: 'check' | 'watch'): HealthMethod {
  return (raw as unknown as Record<string, HealthMethod>)[name]!.bind(raw);
}

function healthCallOptions(opts: RpcOptions): CallOptions {
  return opts.deadlineMs === undefined ? {} : { deadline: Date.now() + opts.deadlineMs };
}

function checkHealth(raw: Client, service: string, opts: RpcOptions): Promise<HealthStatus> {
  return cancellable<{ status: HealthStatus }>(opts.signal, (done) =>
    healthMethod(raw, 'check')(
      { service },
      opts.metadata ?? new Metadata(),
      healthCallOptions(opts),
      done,
    ),
  ).then((res) => res.status);
}

async function* watchHealth(
  raw: Client,
  service: string,
  opts: RpcOptions,
): AsyncGenerator<HealthStatus> {
  const start = () =>
    healthMethod(raw, 'watch')(
      { service },
      opts.metadata ?? new Metadata(),
      healthCallOptions(opts),
    ) as ClientReadableStream<unknown>;
  for await (const res of streamResponses(start, opts)) {
    yield (res as { status: HealthStatus }).status;
  }
}
