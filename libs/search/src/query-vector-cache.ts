/**
 * The vectors of recent queries, per engine: a server sees the same
 * question again (an agent retrying, paging, several agents on one
 * repository), and embedding is the largest single cost of a hybrid search
 * (the model's run, about a third of the search's CPU). Only single-text
 * calls are cached and answered: a text embedded within a batch may come
 * out a rounding error apart from the same text alone (padding to the
 * batch's longest text), and a cached answer must be exactly what the model
 * would give.
 */
import type { Embedder } from '@codesift/models';
import { LruCache } from './lru.js';

/** Queries remembered per engine: 512-d vectors, 2 KB each. */
export const QUERY_VECTOR_CACHE_SIZE = 256;

export function withQueryVectorCache(
  embedder: Embedder,
  capacity = QUERY_VECTOR_CACHE_SIZE,
): Embedder {
  const cache = new LruCache<Float32Array>(capacity);
  return {
    name: embedder.name,
    dimensions: embedder.dimensions,
    maxBatch: embedder.maxBatch,
    async embed(texts, options) {
      if (texts.length !== 1) return embedder.embed(texts, options);
      const text = texts[0]!;
      const hit = cache.get(text);
      // A copy: the caller owns what it gets and may change it.
      if (hit !== undefined) return [hit.slice()];
      const vectors = await embedder.embed(texts, options);
      if (vectors.length === 1) cache.set(text, vectors[0]!.slice());
      return vectors;
    },
    close: () => embedder.close(),
  };
}
