import { CodesiftError } from '@codesift/core';
import {
  BUILTIN_EMBEDDER_NAME,
  type BuiltinEmbedderOptions,
  createBuiltinEmbedder,
} from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import { createOllamaEmbedder, DEFAULT_OLLAMA_EMBED_MODEL } from './ollama-embedder.js';

/**
 * CODESIFT_EMBED_THREADS: onnxruntime threads for the built-in model; unset:
 * every core the process sees. A container sets it to its CPU limit (the
 * Kubernetes embedder takes it from limits.cpu), since the cores a process
 * sees are the node's, not its share.
 */
export function embedThreadsFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.CODESIFT_EMBED_THREADS?.trim();
  if (!raw) return undefined;
  const threads = Number(raw);
  if (!(Number.isInteger(threads) && threads >= 1)) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `CODESIFT_EMBED_THREADS must be a positive integer, not '${raw}'`,
    );
  }
  return threads;
}

/** The built-in model with CODESIFT_EMBED_THREADS threads. */
export function createBuiltinEmbedderFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: Pick<BuiltinEmbedderOptions, 'thread' | 'workers'> = {},
): Promise<Embedder> {
  const threads = embedThreadsFromEnv(env);
  return createBuiltinEmbedder(threads === undefined ? options : { ...options, threads });
}

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
  return createBuiltinEmbedderFromEnv(env);
}

/** The name of the embedder createEmbedderFromEnv would make, without loading it. */
export function embedderNameFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  if (!env.OLLAMA_HOST?.trim()) return BUILTIN_EMBEDDER_NAME;
  return `ollama:${env.CODESIFT_EMBED_MODEL?.trim() || DEFAULT_OLLAMA_EMBED_MODEL}`;
}
