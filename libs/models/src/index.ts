export {
  BUILTIN_EMBEDDER_NAME,
  type BuiltinEmbedderOptions,
  createBuiltinEmbedder,
} from './builtin-embedder.js';
export type { Embedder, EmbedOptions } from './embedder.js';
export {
  createBuiltinEmbedderFromEnv,
  createEmbedderFromEnv,
  embedderNameFromEnv,
  embedThreadsFromEnv,
} from './from-env.js';
export {
  createOllamaEmbedder,
  DEFAULT_OLLAMA_EMBED_MODEL,
  type OllamaEmbedderOptions,
} from './ollama-embedder.js';
export { cosine, l2Normalize } from './vector-math.js';
