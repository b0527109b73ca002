import { CodesiftError, errorMessage } from '@codesift/core';
import { IndexService, SearchService, SymbolService } from '@codesift/proto';
import type { SearchEngine } from '@codesift/search';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { checkBearerToken } from './auth.js';
import { ServerHealth } from './health.js';
import { type ImplementOptions, implement } from './implement.js';
import type { IndexJobs } from './index-jobs.js';
import { type IndexRootPolicy, indexHandlers } from './index-service.js';
import { searchHandlers } from './search-service.js';
import { grpcServiceDefinition } from './service-definition.js';
import { symbolHandlers } from './symbol-service.js';

export interface GrpcServerOptions {
  engine: SearchEngine;
  /** Enables StartIndex; without it IndexService only reports the index status. */
  jobs?: IndexJobs;
  /** Where StartIndex may point (see IndexRootPolicy); without it every named root is refused. */
  indexRoots?: IndexRootPolicy;
  /** When set, every call except health checks needs `authorization: Bearer <token>`. */
  token?: string;
  /** Largest request accepted; default 1 MiB (requests are a query and a few filters). */
  maxReceiveMessageBytes?: number;
  /** Largest response sent; default 16 MiB (100 results with snippets stay far below). */
  maxSendMessageBytes?: number;
}

export interface ListenAddress {
  host: string;
  port: number;
  /** `host:port` (IPv6 hosts in brackets), as clients dial it. */
  address: string;
}

export interface CodesiftGrpcServer {
  readonly server: Server;
  /** Binds and starts serving; port 0 picks a free port. */
  listen(host: string, port: number): Promise<ListenAddress>;
  /**
   * Health turns NOT_SERVING, then in-flight calls get `graceMs` (default
   * 5000) to finish before the rest are cancelled. Never rejects.
   */
  shutdown(options?: { graceMs?: number }): Promise<void>;
}

/** The full names of the services this server exposes (health excepted). */
export const SERVICE_NAMES = [
  SearchService.typeName,
  SymbolService.typeName,
  IndexService.typeName,
];

/**
 * A gRPC server for one search engine: SearchService, SymbolService,
 * IndexService and grpc.health.v1.Health. The engine and jobs stay owned by
 * the caller, who closes them after `shutdown`.
 */
export function createGrpcServer(options: GrpcServerOptions): CodesiftGrpcServer {
  const server = new Server({
    'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? 1024 * 1024,
    'grpc.max_send_message_length': options.maxSendMessageBytes ?? 16 * 1024 * 1024,
  });
  const token = options.token;
  const guard: ImplementOptions = token
    ? { authorize: (metadata) => checkBearerToken(metadata, token) }
    : {};
  server.addService(
    grpcServiceDefinition(SearchService),
    implement(SearchService, searchHandlers(options.engine), guard),
  );
  server.addService(
    grpcServiceDefinition(SymbolService),
    implement(SymbolService, symbolHandlers(options.engine), guard),
  );
  server.addService(
    grpcServiceDefinition(IndexService),
    implement(IndexService, indexHandlers(options.engine, options.jobs, options.indexRoots), guard),
  );
  // Health stays open without a token so load balancers and probes need no secret.
  const health = new ServerHealth(SERVICE_NAMES);
  health.addTo(server);

  let shuttingDown: Promise<void> | null = null;
  return {
    server,
    listen: (host, port) => listen(server, host, port),
    shutdown(opts = {}) {
      shuttingDown ??= shutdown(server, health, opts.graceMs ?? 5000);
      return shuttingDown;
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<ListenAddress> {
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return new Promise((resolve, reject) => {
    server.bindAsync(`${hostPart}:${port}`, ServerCredentials.createInsecure(), (err, bound) => {
      if (err) {
        const inUse = /EADDRINUSE|address already in use/i.test(err.message);
        reject(
          new CodesiftError(
            'INVALID_ARGUMENT',
            inUse
              ? `cannot listen on ${hostPart}:${port}: the port is already in use`
              : `cannot listen on ${hostPart}:${port}: ${errorMessage(err)}`,
            {
              hint: inUse
                ? 'stop the other server, or pass another --port (0 picks a free one)'
                : 'check --host and --port',
              cause: err,
            },
          ),
        );
        return;
      }
      resolve({ host, port: bound, address: `${hostPart}:${bound}` });
    });
  });
}

function shutdown(server: Server, health: ServerHealth, graceMs: number): Promise<void> {
  health.set('NOT_SERVING');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    timer.unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Resolves on the first SIGINT or SIGTERM, for a process that serves until
 * told to stop; a second one gets Node's default (immediate exit).
 */
export function waitForStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
