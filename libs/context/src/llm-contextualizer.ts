import type { Chunk } from '@codesift/core';
import type { LlmClient } from '@codesift/llm';
import type { ContextCache } from './context-cache.js';
import { contextCacheKey } from './context-cache.js';
import { rejectContext } from './context-check.js';
import {
  CONTEXT_PROMPT_VERSION,
  CONTEXT_SCHEMA,
  CONTEXT_SYSTEM,
  contextUserMessage,
  type FileOutline,
} from './context-prompt.js';
import type { ChunkContext, Contextualizer } from './contextualizer.js';
import { patternContext } from './pattern.js';

export interface LlmContextDeps {
  client: LlmClient;
  /** Accepted answers by content; without one every chunk is asked. */
  cache?: ContextCache;
}

/** Longest answer text read from the model (the accepted context is shorter still). */
const MAX_ANSWER_CHARS = 4000;

/**
 * The context of one chunk in LLM mode: from the cache, else one model call
 * of its own (so text inside one chunk can only ever affect that chunk's
 * context), checked, else the pattern context with the reason. Never rejects.
 * A pure function of its inputs and the cache, so a pipeline worker can call
 * it as the local runner does.
 */
export async function llmChunkContext(
  chunk: Chunk,
  outline: FileOutline | undefined,
  deps: LlmContextDeps,
): Promise<ChunkContext> {
  const key = contextCacheKey(chunk, deps.client.model, CONTEXT_PROMPT_VERSION);
  const hit = await deps.cache?.get(key);
  if (hit !== undefined) return { text: hit, source: 'llm', cached: true };
  const out = await deps.client.chatJson<{ context: string }>({
    system: CONTEXT_SYSTEM,
    user: contextUserMessage(chunk, outline),
    schema: CONTEXT_SCHEMA,
    maxAnswerChars: MAX_ANSWER_CHARS,
    options: { temperature: 0, num_predict: 160 },
  });
  const fallback = patternContext(chunk);
  if (!out.ok)
    return { text: fallback, source: 'pattern', fallback: out.failure, detail: out.reason };
  const text = out.value.context.replace(/\s+/g, ' ').trim();
  const rejected = rejectContext(text, chunk);
  if (rejected) return { text: fallback, source: 'pattern', fallback: rejected };
  await deps.cache?.put(key, text, deps.client.model, CONTEXT_PROMPT_VERSION);
  return { text, source: 'llm' };
}

/** LLM-mode contextualizer: every chunk of a file asked at once, the client bounding concurrency. */
export function createLlmContextualizer(
  deps: LlmContextDeps & { parallelFiles?: number },
): Contextualizer {
  const contextualizeFile = (chunks: readonly Chunk[], outline?: FileOutline) =>
    Promise.all(chunks.map((c) => llmChunkContext(c, outline, deps)));
  return {
    name: `llm:${deps.client.model}`,
    parallelFiles: deps.parallelFiles ?? 1,
    contextualizeFile,
    async contextualize(chunks) {
      return (await contextualizeFile(chunks)).map((c) => c.text);
    },
  };
}
