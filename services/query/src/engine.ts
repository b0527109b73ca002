// How the query service searches. Kept to two small functions so the server
// wiring stays the same whichever store the config names: the writer's SQLite
// index (searched on a pool of threads) or Elasticsearch + Qdrant.

import { openLocalEnginePool } from '@codesift/engine-pool';
import type { SearchEngine } from '@codesift/search';
import { listVocabulary, openEngine } from '@codesift/search';
import type { SymbolIndex } from '@codesift/stores';
import { type OpenFromEnvOptions, openSearchIndexFromEnv } from '@codesift/stores-cluster/env';
import type { QueryConfig } from './config.js';

/**
 * The search engine over the cluster's stores, with the same planner,
 * fan-out and fusion as local mode: the writer's SQLite index read-only, or
 * Elasticsearch + Qdrant with symbols from the symbol service (the
 * definition boost then asks it too).
 */
export async function openClusterEngine(
  config: QueryConfig,
  env: NodeJS.ProcessEnv,
  symbols?: SymbolIndex,
  stores: Pick<OpenFromEnvOptions, 'connectElasticsearch'> = {},
): Promise<SearchEngine> {
  // A server: the model loads at start, not on the first query.
  const embedder = config.keywordOnly
    ? { embedder: null }
    : { preloadModel: true, longTextWorker: true };
  if (config.store.kind === 'sqlite') {
    return openLocalEnginePool(
      { indexPath: config.store.indexPath, env, ...embedder },
      config.searchThreads,
    );
  }
  const index = await openSearchIndexFromEnv(env, { ...stores, ...(symbols ? { symbols } : {}) });
  try {
    return await openEngine({ index, env, ...embedder });
  } catch (err) {
    await index.close();
    throw err;
  }
}

/**
 * `engine` with symbol lookups and the vocabulary answered by the symbol
 * service (its own store) instead of the engine's index; the vocabulary
 * for some terms is the same slice the LLM rewrite sends (`related`).
 */
export function withSymbolService(
  engine: SearchEngine,
  symbols: Pick<SymbolIndex, 'lookup' | 'vocabulary' | 'related'>,
): SearchEngine {
  return {
    search: (request) => engine.search(request),
    status: () => engine.status(),
    getSnippet: (p, start, end) => engine.getSnippet(p, start, end),
    close: () => engine.close(),
    lookupSymbol: (name, options) => symbols.lookup(name, options),
    vocabulary: (options) => listVocabulary(symbols, options),
  };
}
