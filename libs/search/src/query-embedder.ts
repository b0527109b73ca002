/**
 * The embedder that turns a query into a vector: the caller's, or the one
 * the index was built with, loaded when a search first needs it (or, with
 * `preload`, in the background from the engine's opening on).
 */
import { CodesiftError } from '@codesift/core';
import type { Embedder } from '@codesift/models';
import type { IndexMeta } from '@codesift/stores';
import { embedderForIndex } from './embedder-for-index.js';

export interface QueryEmbedder {
  /** The embedder, once loaded; rejects with what loading threw. */
  get(): Promise<Embedder>;
  /** Closes an embedder the engine loaded itself; a given one stays the caller's. */
  close(): Promise<void>;
}

/**
 * The query embedder for an index, or null when the search is keyword only
 * (an index without vectors, or `embedder: null`). A given embedder must be
 * the one the index was built with.
 */
export function queryEmbedderFor(
  meta: Pick<IndexMeta, 'embedder' | 'dimensions'>,
  location: string,
  embedder: Embedder | null | undefined,
  env: NodeJS.ProcessEnv,
  load: { preload?: boolean | undefined; longTextWorker?: boolean | undefined } = {},
): QueryEmbedder | null {
  if (meta.embedder === null || meta.dimensions === null || embedder === null) return null;
  if (embedder) {
    if (embedder.name !== meta.embedder || embedder.dimensions !== meta.dimensions) {
      throw new CodesiftError(
        'INDEX_INCOMPATIBLE',
        `index ${location} was embedded with ${meta.embedder} (${meta.dimensions}-d), not ${embedder.name} (${embedder.dimensions}-d)`,
        { hint: 'search with the index’s embedder, keyword only, or re-index' },
      );
    }
    return { get: async () => embedder, close: async () => {} };
  }
  const { embedder: name, dimensions } = meta;
  let loading: Promise<Embedder | { error: unknown }> | undefined;
  // Loading the model (onnxruntime, the tokenizer) costs more than a whole
  // keyword search, so it starts only when wanted; it then overlaps with
  // whatever the caller does until the vector side awaits it.
  const start = () => {
    loading ??= embedderForIndex(name, dimensions, env, load.longTextWorker).catch(
      (error: unknown) => ({ error }),
    );
    return loading;
  };
  if (load.preload) start();
  return {
    async get() {
      const loaded = await start();
      if ('error' in loaded) throw loaded.error;
      return loaded;
    },
    async close() {
      if (loading === undefined) return;
      const loaded = await loading;
      if (!('error' in loaded)) await loaded.close();
    },
  };
}
