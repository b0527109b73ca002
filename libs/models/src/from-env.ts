import { BUILTIN_EMBEDDER_NAME, createBuiltinEmbedder } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import { createOllamaEmbedder, DEFAULT_OLLAMA_EMBED_MODEL } from './ollama-embedder.js';

/**
 * OLLAMA_HOST set (non-empty) -> Ollama, with the model from
 * CODESIFT_EMBED_MODEL (default nomic-embed-text); otherwise the built-in
 * offline model.
 */
export function createEmbedderFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<Embedder> {
  const host = env.OLLAMA_HOST?.trim();
  if (host) {
    const model = env.CODESIFT_EMBED_MODEL?.trim();
    return createOllamaEmbedder(model ? { host, model } : { host });
  }
  return createBuiltinEmbedder();
}

/** The name of the embedder createEmbedderFromEnv would make, without loading it. */
export function embedderNameFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  if (!env.OLLAMA_HOST?.trim()) return BUILTIN_EMBEDDER_NAME;
  return `ollama:${env.CODESIFT_EMBED_MODEL?.trim() || DEFAULT_OLLAMA_EMBED_MODEL}`;
}
