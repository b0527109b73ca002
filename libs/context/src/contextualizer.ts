import type { Chunk, ContextSource } from '@codesift/core';
import type { LlmFailure } from '@codesift/llm';
import type { ContextRejection } from './context-check.js';
import type { FileOutline } from './context-prompt.js';
import { patternContext } from './pattern.js';

export type { ContextSource };

/** Why a chunk got the pattern context in LLM mode: the call failed, or its answer was rejected. */
export type ContextFallback = LlmFailure | ContextRejection;

/** Records a context and its source on its chunk, where the index stores them. */
export function applyContext(chunk: Chunk, context: ChunkContext | undefined): void {
  chunk.context = context?.text ?? '';
  if (context) chunk.contextSource = context.source;
  if (context?.fallback) chunk.contextFallback = context.fallback;
}

/** One chunk's context and where it came from. */
export interface ChunkContext {
  text: string;
  source: ContextSource;
  /** LLM mode only, when the pattern context stood in. */
  fallback?: ContextFallback;
  /** The failure's detail, for logs. */
  detail?: string;
  /** The LLM context came from the cache, not a call. */
  cached?: boolean;
}

/**
 * Gives each chunk of a file its context. Implementations: pattern (always
 * available) and LLM (falls back to the pattern per chunk on timeout, error
 * or an unusable answer).
 */
export interface Contextualizer {
  readonly name: string;
  /** Returns one context string per chunk, same order. Never rejects for bad input. */
  contextualize(chunks: readonly Chunk[]): Promise<string[]>;
  /** Same, with each context's source; `outline` lists the file's symbols. */
  contextualizeFile(chunks: readonly Chunk[], outline?: FileOutline): Promise<ChunkContext[]>;
  /** Files worth contextualizing at once (LLM mode overlaps calls across files). */
  readonly parallelFiles: number;
}

export function createPatternContextualizer(): Contextualizer {
  return {
    name: 'pattern',
    parallelFiles: 1,
    async contextualize(chunks) {
      return chunks.map(patternContext);
    },
    async contextualizeFile(chunks) {
      return chunks.map((c) => ({ text: patternContext(c), source: 'pattern' }));
    },
  };
}

/**
 * The text the embedder sees. The built-in model reads only its first ~128
 * tokens, so the context (which names the symbol and path) goes first and the
 * signature before the body.
 */
export function embeddingText(chunk: Chunk): string {
  const head = chunk.context ? `${chunk.context}\n` : '';
  return `${head}${chunk.content}`;
}
