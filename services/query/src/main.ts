// codesift-query: the cluster's query service. gRPC SearchService over the
// cluster's index (the same planner and fusion as local mode), SymbolService
// answered by the symbol service over NATS, IndexService running jobs
// through the scanner service, grpc.health.v1, optional token auth. It only
// wires libraries together; SIGINT/SIGTERM stop it gracefully.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createClusterIndexJobs, NatsSymbolIndex } from '@codesift/cluster-services';
import { errorMessage, isCodesiftError, weakTokenWarning } from '@codesift/core';
import { createGrpcServer, type IndexJobs, quietGrpcLogs, waitForStopSignal } from '@codesift/grpc';
import { connectWithRetry, createLogger, type Logger } from '@codesift/service-kit';
import { type OpenFromEnvOptions, openSearchIndexFromEnv } from '@codesift/stores-cluster/env';
import { startTelemetry } from '@codesift/telemetry';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  DEFAULT_GRPC_HOST,
  DEFAULT_GRPC_PORT,
  type QueryConfig,
  readQueryConfig,
  serverToken,
} from './config.js';
import { openClusterEngine, withSymbolService } from './engine.js';
import {
  type IndexIdentity,
  openReopeningEngine,
  type ReopeningEngine,
} from './reopening-engine.js';

export const USAGE = `usage: codesift-query

The cluster's query service (gRPC): codesift.v1.SearchService on the
cluster's index, SymbolService through the symbol service (NATS), IndexService
through the scanner service (NATS jobs queue), grpc.health.v1.Health.
Configured from the environment; SIGINT/SIGTERM stop it (calls in flight get
5 s).

environment:
  CODESIFT_STORE              sqlite (default) or elastic
  CODESIFT_INDEX              sqlite: the writer's SQLite index file
  ES_URL, QDRANT_URL          elastic: Elasticsearch and Qdrant (ES_USERNAME + ES_PASSWORD
                              or ES_API_KEY, QDRANT_API_KEY, CODESIFT_INDEX_NAME optional)
  NATS_URL                    NATS server (default nats://127.0.0.1:4222)
  NATS_USER, NATS_PASSWORD    NATS credentials, when the server requires them (or NATS_TOKEN)
  CODESIFT_GRPC_HOST          address to listen on (default ${DEFAULT_GRPC_HOST})
  CODESIFT_GRPC_PORT          port (default ${DEFAULT_GRPC_PORT}; 0 picks a free one)
  CODESIFT_TOKEN              require 'authorization: Bearer <token>' (health excepted);
                              the service refuses to start without one unless
  CODESIFT_INSECURE_NO_AUTH   is 1 and CODESIFT_GRPC_HOST is a loopback address
  CODESIFT_SCAN_ROOTS         directories StartIndex roots must lie under, as the
                              scanner sees them ('${path.delimiter}'-separated; default
                              CODESIFT_SCAN_ROOT, else the working directory);
                              others are PERMISSION_DENIED
  CODESIFT_EMBEDDER           none: keyword-only search; otherwise queries are embedded
                              with the model the index records
  OLLAMA_HOST                 Ollama server, for an index embedded with Ollama
  CODESIFT_INDEX_POLL_MS      how often to look for a new embedder or a rebuilt index
                              (default 3000)
  CODESIFT_SYMBOL_TIMEOUT_MS  per symbol-service request (default 2000)
  CODESIFT_CONNECT_ATTEMPTS   NATS connection tries at start-up (default 30)
  CODESIFT_SEARCH_THREADS     sqlite: search worker threads (default one per core, at
                              most 4; 0: the main thread)
  CODESIFT_LOG_LEVEL          debug | info | warn | error
  OTEL_EXPORTER_OTLP_ENDPOINT export traces and metrics over OTLP/HTTP (e.g. http://jaeger:4318);
                              OTEL_TRACES_EXPORTER=console prints spans on stderr
  CODESIFT_METRICS_PORT       serve Prometheus metrics at /metrics on this port (e.g. 9464)
  CODESIFT_METRICS_HOST       address of the metrics endpoint (default 127.0.0.1; 0.0.0.0 in
                              a container that Prometheus scrapes)
`;

const GRACE_MS = 5000;

export interface RunningQueryService {
  /** `host:port` as clients dial it. */
  readonly address: string;
  readonly port: number;
  readonly engine: ReopeningEngine;
  stop(reason?: string): Promise<void>;
}

/**
 * The elastic store's identity: its recorded embedder and creation time
 * (a rebuilt store set is a new one). Null while no writer has created it.
 */
async function storeIdentity(
  env: NodeJS.ProcessEnv,
  stores: StoreHooks,
): Promise<IndexIdentity | null> {
  let index: Awaited<ReturnType<typeof openSearchIndexFromEnv>>;
  try {
    index = await openSearchIndexFromEnv(env, stores);
  } catch {
    return null;
  }
  try {
    const m = await index.meta();
    return { ino: 0, embedder: m.embedder, dimensions: m.dimensions, createdAt: m.createdAt };
  } catch {
    return null;
  } finally {
    await index.close().catch(() => undefined);
  }
}

/** Waits until the writer has created the index (it does so when it starts). */
async function waitForIndex(
  config: QueryConfig,
  env: NodeJS.ProcessEnv,
  log: Logger,
  stores: StoreHooks,
  signal?: AbortSignal,
) {
  const ready = async () => {
    if (config.indexPath !== undefined && !existsSync(config.indexPath)) return false;
    // The file appears before the writer has laid down its schema: opening it
    // then says INDEX_NOT_FOUND ("is empty"), which means "not yet" here too.
    try {
      await (await openSearchIndexFromEnv(env, stores)).close();
      return true;
    } catch (err) {
      if (isCodesiftError(err) && err.code === 'INDEX_NOT_FOUND') return false;
      throw err;
    }
  };
  if (await ready()) return;
  log.info('waiting for the index', { index: config.indexPath ?? config.store.kind });
  while (!(await ready())) {
    signal?.throwIfAborted();
    await new Promise((r) => setTimeout(r, Math.min(config.pollMs, 1000)));
  }
}

/** Starts the service in this process; `stop` shuts it down (tests call it directly). */
/** How the elastic store connects; tests hand in a client (the default connects to ES_URL). */
export type StoreHooks = Pick<OpenFromEnvOptions, 'connectElasticsearch'>;

export async function startQueryService(
  env: NodeJS.ProcessEnv,
  log: Logger = createLogger('query'),
  stores: StoreHooks = {},
): Promise<RunningQueryService> {
  const config = readQueryConfig(env);
  // Before anything connects: a server that may not run says so at once.
  const token = serverToken(config);
  if (token === undefined) log.warn('serving without authentication (CODESIFT_INSECURE_NO_AUTH)');
  const weak = weakTokenWarning(token ?? null);
  if (weak) log.warn(weak);
  quietGrpcLogs(env);
  await waitForIndex(config, env, log, stores);
  const nc: NatsConnection = await connectWithRetry(config.natsUrl, {
    name: 'codesift-query',
    attempts: config.connectAttempts,
    auth: config.natsAuth,
    log,
  });
  let engine: ReopeningEngine | undefined;
  let jobs: ReturnType<typeof createClusterIndexJobs> | undefined;
  try {
    const symbols = new NatsSymbolIndex(nc, { timeoutMs: config.symbolTimeoutMs });
    engine = await openReopeningEngine({
      ...(config.indexPath !== undefined
        ? { indexPath: config.indexPath }
        : { identity: () => storeIdentity(env, stores) }),
      open: () => openClusterEngine(config, env, symbols, stores),
      pollMs: config.pollMs,
      onReopen: (id) =>
        log.info('index reopened', { embedder: id.embedder, dimensions: id.dimensions }),
      onError: (err) => log.warn('could not reopen the index', { error: errorMessage(err) }),
    });
    jobs = createClusterIndexJobs({
      js: jetstream(nc),
      onError: (err, jobId) => log.warn('lost an index job', { job: jobId, error: err }),
    });
    const indexJobs: IndexJobs = jobs;
    const server = createGrpcServer({
      engine: withSymbolService(engine.engine, symbols),
      jobs: indexJobs,
      token,
      // The checkouts are on the scanner's disk, which checks the root again
      // (and alone can resolve symlinks there when this service lacks them).
      indexRoots: { scanRoots: config.scanRoots, mayBeElsewhere: true },
    });
    const bound = await server.listen(config.host, config.port);
    log.info('listening', {
      address: bound.address,
      index: config.indexPath ?? config.store.kind,
      nats: config.natsUrl,
      auth: token !== undefined,
      scanRoots: config.scanRoots,
      keywordOnly: config.keywordOnly,
    });
    let stopping: Promise<void> | undefined;
    const openEngine = engine;
    const openJobs = jobs;
    return {
      address: bound.address,
      port: bound.port,
      engine: openEngine,
      stop(reason = 'stop') {
        stopping ??= (async () => {
          log.info('stopping', { reason });
          await server.shutdown({ graceMs: GRACE_MS });
          await openJobs.close();
          await openEngine.close();
          await nc.drain().catch(() => undefined);
          log.info('stopped');
        })();
        return stopping;
      },
    };
  } catch (err) {
    await jobs?.close();
    await engine?.close();
    await nc.close().catch(() => undefined);
    throw err;
  }
}

/** The process: returns its exit code (0 after a clean stop, 1 on failure, 2 on a bad command line). */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv[0] === '-h' || argv[0] === '--help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write(`codesift-query: takes no arguments (got ${argv.join(' ')})\n\n${USAGE}`);
    return 2;
  }
  const log = createLogger('query');
  let telemetry: Awaited<ReturnType<typeof startTelemetry>>;
  let service: RunningQueryService;
  try {
    // Before the server: its spans need the SDK registered first.
    telemetry = await startTelemetry({ serviceName: 'codesift-query', env });
    if (telemetry.enabled) log.info('tracing on', { endpoint: telemetry.tracesUrl });
    if (telemetry.prometheusUrl) log.info('metrics on', { prometheus: telemetry.prometheusUrl });
  } catch (err) {
    log.error('bad tracing settings', { error: errorMessage(err) });
    return 2;
  }
  try {
    service = await startQueryService(env, log);
  } catch (err) {
    log.error('failed to start', { error: errorMessage(err) });
    await telemetry.shutdown();
    return 1;
  }
  const signal = await waitForStopSignal();
  await service.stop(signal);
  await telemetry.shutdown();
  return 0;
}
