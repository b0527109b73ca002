import { availableParallelism } from 'node:os';
import { type LocalEngineOptions, openLocalEngine, type SearchEngine } from '@codesift/search';
import { localEngineFactory } from './local-factory.js';
import { openEnginePool } from './pool.js';

/**
 * Search threads a server uses by default: one per core, at most 4 (past
 * that, each worker's SQLite reader and model cost more memory than they
 * win on a typical load); none on one core, where a pool only adds copies.
 */
export function defaultSearchThreads(cores = availableParallelism()): number {
  return cores > 1 ? Math.min(cores, 4) : 0;
}

/**
 * The workers' environment: unless CODESIFT_EMBED_THREADS says otherwise,
 * each worker's model gets its share of the cores, not all of them (every
 * worker running a model on every core would oversubscribe them).
 */
export function workerEnv(
  env: NodeJS.ProcessEnv,
  threads: number,
  cores = availableParallelism(),
): NodeJS.ProcessEnv {
  const plain = { ...env };
  if (plain.CODESIFT_EMBED_THREADS?.trim()) return plain;
  return { ...plain, CODESIFT_EMBED_THREADS: String(Math.max(1, Math.floor(cores / threads))) };
}

export type LocalPoolOptions = Omit<LocalEngineOptions, 'embedder'> & { embedder?: null };

/**
 * The local engine on `threads` worker threads (0: on this thread). Status,
 * symbols and snippets stay on a main-thread engine (which never loads the
 * model); closing the result closes both.
 */
export async function openLocalEnginePool(
  options: LocalPoolOptions,
  threads: number,
): Promise<SearchEngine> {
  if (threads === 0) return openLocalEngine(options);
  // The primary never searches here, so it never needs the model.
  const primary = await openLocalEngine({ ...options, preloadModel: false });
  try {
    const pool = await openEnginePool({
      factory: localEngineFactory({
        ...options,
        env: workerEnv(options.env ?? process.env, threads),
      }),
      threads,
      primary,
    });
    return {
      ...pool,
      async close() {
        await pool.close();
        await primary.close();
      },
    };
  } catch (err) {
    await primary.close();
    throw err;
  }
}
