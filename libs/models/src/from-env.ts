import { createBuiltinEmbedder } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import { createOllamaEmbedder } from './ollama-embedder.js';

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
