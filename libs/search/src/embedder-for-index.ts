/**
 * Recreates the query embedder an index was built with: vectors are only
 * comparable with vectors from the same model. The index records the
 * embedder's name: `builtin:...` is the offline model, `ollama:<model>` an
 * Ollama model reached through OLLAMA_HOST.
 */
import { CodesiftError } from '@codesift/core';
import type { Embedder } from '@codesift/models';
import { longTextsInWorker } from './long-text-embedder.js';

export async function embedderForIndex(
  name: string,
  dimensions: number,
  env: NodeJS.ProcessEnv,
  /** Long texts in a model worker thread (long-text-embedder.ts): for long-lived engines. */
  longTextWorker = false,
): Promise<Embedder> {
  // Loaded on demand: `codesift search --keyword-only` should not pay for model code.
  const models = await import('@codesift/models');
  if (name === models.BUILTIN_EMBEDDER_NAME) {
    // CODESIFT_EMBED_THREADS: onnxruntime threads for query embedding (default: every
    // core). A server running several engines gives each a share instead.
    // On the calling thread: a query is one short text (a few ms), a server's
    // engines already run in worker threads, and a hop to a model thread cost
    // search latency when measured (docs/BENCHMARKS.md, engine pool).
    const inline = await models.createBuiltinEmbedderFromEnv(env, { thread: 'main' });
    if (!longTextWorker) return inline;
    // One worker with the same threads: a query is one text, and the keyword side
    // holds this thread meanwhile.
    return longTextsInWorker(inline, {
      startWorker: () => models.createBuiltinEmbedderFromEnv(env, { thread: 'worker', workers: 1 }),
    });
  }
  if (name.startsWith('ollama:')) {
    const host = env.OLLAMA_HOST?.trim();
    if (!host) {
      throw new CodesiftError(
        'MODEL_UNAVAILABLE',
        `the index was embedded with ${name} but OLLAMA_HOST is not set`,
        { hint: 'set OLLAMA_HOST to the Ollama server, or search with --keyword-only' },
      );
    }
    // The index knows the dimensions, so no probe request is needed at start-up.
    return models.createOllamaEmbedder({ host, model: name.slice('ollama:'.length), dimensions });
  }
  throw new CodesiftError('MODEL_UNAVAILABLE', `unknown embedder ${name} recorded in the index`, {
    hint: 'search with --keyword-only, or re-index with `codesift index --rebuild`',
  });
}
