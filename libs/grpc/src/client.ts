import { create } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { IndexService, SearchService, SymbolService } from '@codesift/proto';
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
} from '@grpc/grpc-js';
import { service as healthServiceDefinition, type ServingStatus } from 'grpc-health-check';
import { HEALTH_SERVICE_NAME } from './health.js';
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
 * methods. `raw` must have been made by clientConstructor(service).
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
    const prepare = (request: unknown, opts: RpcOptions) => {
      const metadata = opts.metadata?.clone() ?? new Metadata();
      if (options.token) metadata.set('authorization', `Bearer ${options.token}`);
      const callOptions: CallOptions = {};
      if (opts.deadlineMs !== undefined) callOptions.deadline = Date.now() + opts.deadlineMs;
      return [create(method.input, request as never), metadata, callOptions] as const;
    };
    if (method.methodKind === 'unary') {
      out[method.localName] = (request: unknown, opts: RpcOptions = {}) =>
        cancellable(opts.signal, (done) => fn(...prepare(request, opts), done));
    } else if (method.methodKind === 'server_streaming') {
      out[method.localName] = (request: unknown, opts: RpcOptions = {}) =>
        streamResponses(() => fn(...prepare(request, opts)) as ClientReadableStream<unknown>, opts);
    }
  }
  return out as TypedClient<T>;
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
