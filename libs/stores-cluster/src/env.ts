/**
 * Which stores a service uses, from its environment, so the same binary runs
 * on one machine (SQLite) or on the cluster's Elasticsearch + Qdrant:
 *
 *   CODESIFT_STORE       sqlite (default) | elastic
 *   sqlite:  CODESIFT_INDEX       the index file (many processes share it, WAL)
 *   elastic: ES_URL               e.g. http://elasticsearch:9200
 *            QDRANT_URL           e.g. http://qdrant:6333
 *            ES_API_KEY           optional (Elasticsearch API key, base64 "id:key"), or
 *            ES_USERNAME + ES_PASSWORD  optional (basic auth, e.g. the `elastic` user)
 *            QDRANT_API_KEY       optional (sent as the `api-key` header)
 *            CODESIFT_INDEX_NAME  store set name (default `codesift`): indices
 *                                 <name>-chunks|manifest|meta, collection <name>-vectors
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError } from '@codesift/core';
import { localSearchIndex, type SearchIndex } from '@codesift/search';
import { openSqliteIndex, type SymbolIndex } from '@codesift/stores';
import type { Client, ClientOptions } from '@elastic/elasticsearch';
import type { ClusterIndex } from './cluster-index.js';
import { clusterNames, DEFAULT_INDEX_NAME } from './names.js';
import { sqliteWriterStore, type WriterStore } from './writer-store.js';

export type StoreSettings =
  | { kind: 'sqlite'; indexPath: string }
  | {
      kind: 'elastic';
      esUrl: string;
      esApiKey?: string;
      /** ES_USERNAME + ES_PASSWORD: basic auth, when no API key is set. */
      esBasic?: { username: string; password: string };
      qdrantUrl: string;
      qdrantApiKey?: string;
      /** CODESIFT_INDEX_NAME. */
      name: string;
    };

const KINDS = ['sqlite', 'elastic'] as const;

function value(env: NodeJS.ProcessEnv, key: string): string | undefined {
  const v = env[key]?.trim();
  return v ? v : undefined;
}

function httpUrl(env: NodeJS.ProcessEnv, key: string, example: string): string {
  const raw = value(env, key);
  if (raw === undefined) {
    throw new CodesiftError('INVALID_ARGUMENT', `CODESIFT_STORE=elastic needs ${key}`, {
      hint: `set ${key}, e.g. ${key}=${example}`,
    });
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CodesiftError('INVALID_ARGUMENT', `${key} is not a URL: '${raw}'`, {
      hint: `e.g. ${key}=${example}`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CodesiftError('INVALID_ARGUMENT', `${key} must be an http(s) URL, not '${raw}'`, {
      hint: `e.g. ${key}=${example}`,
    });
  }
  return raw.replace(/\/+$/, '');
}

/** ES_USERNAME + ES_PASSWORD, both or neither. */
function basicAuth(env: NodeJS.ProcessEnv): { username: string; password: string } | undefined {
  const username = value(env, 'ES_USERNAME');
  const password = value(env, 'ES_PASSWORD');
  if (username === undefined && password === undefined) return undefined;
  if (username === undefined || password === undefined) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `ES_${username === undefined ? 'USERNAME' : 'PASSWORD'} is missing: ES_USERNAME and ES_PASSWORD go together`,
      { hint: 'set both from the secrets file (see deploy/README.md), or ES_API_KEY instead' },
    );
  }
  return { username, password };
}

/** The store settings in `env`, checked; a clear INVALID_ARGUMENT for what is missing or wrong. */
export function storesFromEnv(env: NodeJS.ProcessEnv = process.env): StoreSettings {
  const kind = (value(env, 'CODESIFT_STORE') ?? 'sqlite').toLowerCase();
  if (kind === 'sqlite') {
    const file = value(env, 'CODESIFT_INDEX');
    if (file === undefined) {
      throw new CodesiftError('INVALID_ARGUMENT', 'CODESIFT_STORE=sqlite needs CODESIFT_INDEX', {
        hint: 'set CODESIFT_INDEX to the SQLite index file, e.g. /data/index.db (or CODESIFT_STORE=elastic)',
      });
    }
    return { kind: 'sqlite', indexPath: path.resolve(file) };
  }
  if (kind === 'elastic' || kind === 'elasticsearch') {
    const name = value(env, 'CODESIFT_INDEX_NAME') ?? DEFAULT_INDEX_NAME;
    clusterNames(name); // checks it
    const out: StoreSettings = {
      kind: 'elastic',
      esUrl: httpUrl(env, 'ES_URL', 'http://elasticsearch:9200'),
      qdrantUrl: httpUrl(env, 'QDRANT_URL', 'http://qdrant:6333'),
      name,
    };
    const esApiKey = value(env, 'ES_API_KEY');
    const qdrantApiKey = value(env, 'QDRANT_API_KEY');
    if (esApiKey) out.esApiKey = esApiKey;
    const esBasic = basicAuth(env);
    if (esBasic && esApiKey) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        'set ES_API_KEY or ES_USERNAME/ES_PASSWORD, not both',
        {
          hint: 'one of them authenticates to Elasticsearch',
        },
      );
    }
    if (esBasic) out.esBasic = esBasic;
    if (qdrantApiKey) out.qdrantApiKey = qdrantApiKey;
    return out;
  }
  throw new CodesiftError(
    'INVALID_ARGUMENT',
    `unknown CODESIFT_STORE '${value(env, 'CODESIFT_STORE')}'`,
    { hint: `use one of: ${KINDS.join(', ')}` },
  );
}

export interface OpenFromEnvOptions {
  /**
   * Symbols for the elastic store set (the symbol service's client). The
   * query service passes it for lookups; a writer given one also writes
   * symbols with each commit. Ignored for sqlite, whose file holds symbols.
   */
  symbols?: SymbolIndex;
  /** How to make the Elasticsearch client (tests); default a Client on ES_URL. */
  connectElasticsearch?: (settings: Extract<StoreSettings, { kind: 'elastic' }>) => Client;
}

/** How the Elasticsearch client reaches and authenticates to ES_URL. */
export function elasticClientOptions(
  s: Extract<StoreSettings, { kind: 'elastic' }>,
): ClientOptions {
  if (s.esApiKey) return { node: s.esUrl, auth: { apiKey: s.esApiKey } };
  if (s.esBasic) return { node: s.esUrl, auth: { ...s.esBasic } };
  return { node: s.esUrl };
}

async function elasticClient(s: Extract<StoreSettings, { kind: 'elastic' }>): Promise<Client> {
  const { Client } = await import('@elastic/elasticsearch');
  return new Client(elasticClientOptions(s));
}

/**
 * The clients load here, on first use: a service on the SQLite store (the
 * default) never pays their start-up (~150 ms).
 */
async function openCluster(
  s: Extract<StoreSettings, { kind: 'elastic' }>,
  options: OpenFromEnvOptions,
  create: boolean,
): Promise<ClusterIndex> {
  const { ClusterIndex } = await import('./cluster-index.js');
  const es = options.connectElasticsearch
    ? options.connectElasticsearch(s)
    : await elasticClient(s);
  return ClusterIndex.open({
    es,
    ownsClient: true,
    esUrl: s.esUrl,
    qdrant: { url: s.qdrantUrl, ...(s.qdrantApiKey ? { apiKey: s.qdrantApiKey } : {}) },
    prefix: s.name,
    create,
    ...(options.symbols ? { symbols: options.symbols } : {}),
  });
}

/** The writer's store from `env`: the SQLite file (created when missing) or the cluster stores (indices created when missing). */
export async function openWriterStoreFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: OpenFromEnvOptions = {},
): Promise<WriterStore> {
  const s = storesFromEnv(env);
  if (s.kind === 'sqlite') {
    return sqliteWriterStore(openSqliteIndex(s.indexPath, { create: true }), s.indexPath);
  }
  return openCluster(s, options, true);
}

/**
 * The query side's index from `env`, for @codesift/search openEngine: the
 * SQLite file read-only, or the cluster stores (INDEX_NOT_FOUND until a
 * writer has created them).
 */
export async function openSearchIndexFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: OpenFromEnvOptions = {},
): Promise<SearchIndex> {
  const s = storesFromEnv(env);
  if (s.kind === 'sqlite') {
    if (!existsSync(s.indexPath) || statSync(s.indexPath).isDirectory()) {
      throw new CodesiftError('INDEX_NOT_FOUND', `no index file at ${s.indexPath}`, {
        hint: 'index a repository first, or point CODESIFT_INDEX at the index file',
      });
    }
    return localSearchIndex(openSqliteIndex(s.indexPath, { readonly: true }), s.indexPath);
  }
  return openCluster(s, options, false);
}
