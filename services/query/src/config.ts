// The query service is configured from the environment only, like every
// cluster service, so compose, Kubernetes and `npm run cluster` run the same
// binary with no flags.
import { type NatsAuth, natsAuthFromEnv } from '@codesift/bus';
import { CodesiftError, envFlag, resolveServerAuth, scanRootsFromEnv } from '@codesift/core';
import { defaultSearchThreads } from '@codesift/engine-pool';
import { DEFAULT_NATS_URL } from '@codesift/service-kit';
import { type StoreSettings, storesFromEnv } from '@codesift/stores-cluster/env';

/** gRPC port when CODESIFT_GRPC_PORT is unset (the same as `codesift serve`). */
export const DEFAULT_GRPC_PORT = 50051;
export const DEFAULT_GRPC_HOST = '0.0.0.0';

export interface QueryConfig {
  /** NATS_URL: the symbol service and index jobs. */
  natsUrl: string;
  /** NATS_USER + NATS_PASSWORD, or NATS_TOKEN. */
  natsAuth: NatsAuth;
  /**
   * CODESIFT_STORE and its settings: the SQLite index the writer fills
   * (CODESIFT_INDEX, the default) or Elasticsearch + Qdrant (ES_URL, QDRANT_URL).
   */
  store: StoreSettings;
  /** CODESIFT_INDEX, for the SQLite store; undefined for the elastic store. */
  indexPath: string | undefined;
  /** CODESIFT_GRPC_HOST; default 0.0.0.0 (a container's every interface). */
  host: string;
  /** CODESIFT_GRPC_PORT; default 50051, 0 picks a free port. */
  port: number;
  /**
   * CODESIFT_TOKEN: every call except health needs `authorization: Bearer
   * <token>`. Required (see serverToken) unless insecureNoAuth on loopback.
   */
  token: string | undefined;
  /** CODESIFT_INSECURE_NO_AUTH=1: run without a token; refused unless the host is loopback. */
  insecureNoAuth: boolean;
  /**
   * CODESIFT_SCAN_ROOTS (else CODESIFT_SCAN_ROOT, else the working
   * directory): the directories StartIndex may name, as the scanner sees
   * them; anything else is PERMISSION_DENIED.
   */
  scanRoots: string[];
  /**
   * CODESIFT_EMBEDDER: `none` (or a benchmark `fixed:<ms>`, whose hash vectors no
   * query matches) searches by keyword only; anything else embeds queries
   * with the model the index records (Ollama through OLLAMA_HOST).
   */
  keywordOnly: boolean;
  /** CODESIFT_INDEX_POLL_MS: how often the index meta is checked for a new embedder or a rebuilt file; default 3000. */
  pollMs: number;
  /** CODESIFT_SYMBOL_TIMEOUT_MS: how long a symbol-service request may take; default 2000. */
  symbolTimeoutMs: number;
  /** CODESIFT_CONNECT_ATTEMPTS: NATS connection tries at start-up; default 30. */
  connectAttempts: number;
  /**
   * CODESIFT_SEARCH_THREADS: worker threads running searches on the SQLite
   * store (one per core up to 4 by default; 0: the main thread). The elastic
   * store's searches wait on its servers, so they stay on the main thread.
   */
  searchThreads: number;
}

function int(env: NodeJS.ProcessEnv, key: string, fallback: number, min: number, max: number) {
  const raw = env[key]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `${key} must be an integer from ${min} to ${max}, not '${raw}'`,
    );
  }
  return n;
}

export function readQueryConfig(env: NodeJS.ProcessEnv = process.env): QueryConfig {
  const store = storesFromEnv(env);
  const embedder = env.CODESIFT_EMBEDDER?.trim().toLowerCase() ?? '';
  return {
    natsUrl: env.NATS_URL?.trim() || DEFAULT_NATS_URL,
    natsAuth: natsAuthFromEnv(env),
    store,
    indexPath: store.kind === 'sqlite' ? store.indexPath : undefined,
    host: env.CODESIFT_GRPC_HOST?.trim() || DEFAULT_GRPC_HOST,
    port: int(env, 'CODESIFT_GRPC_PORT', DEFAULT_GRPC_PORT, 0, 65535),
    // An empty token (CODESIFT_TOKEN= in a compose file) means no auth.
    token: env.CODESIFT_TOKEN || undefined,
    insecureNoAuth: envFlag(env.CODESIFT_INSECURE_NO_AUTH),
    scanRoots: scanRootsFromEnv(env, process.cwd()),
    keywordOnly: embedder === 'none' || embedder.startsWith('fixed:'),
    pollMs: int(env, 'CODESIFT_INDEX_POLL_MS', 3000, 100, 3_600_000),
    symbolTimeoutMs: int(env, 'CODESIFT_SYMBOL_TIMEOUT_MS', 2000, 1, 600_000),
    connectAttempts: int(env, 'CODESIFT_CONNECT_ATTEMPTS', 30, 1, 1_000_000),
    searchThreads:
      store.kind === 'sqlite'
        ? int(env, 'CODESIFT_SEARCH_THREADS', defaultSearchThreads(), 0, 64)
        : 0,
  };
}

/**
 * The token the server requires, or undefined when it may run without one
 * (CODESIFT_INSECURE_NO_AUTH=1 on a loopback host); throws otherwise. Apart
 * from readQueryConfig so reading a deployment's settings needs no secret.
 */
export function serverToken(config: QueryConfig): string | undefined {
  return (
    resolveServerAuth({
      token: config.token,
      insecureNoAuth: config.insecureNoAuth,
      host: config.host,
      server: 'the query service',
      optOut: 'CODESIFT_INSECURE_NO_AUTH=1',
    }) ?? undefined
  );
}
