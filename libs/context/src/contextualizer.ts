import type { Chunk } from '@codesift/core';
import { patternContext } from './pattern.js';

/**
 * Gives each chunk of a file its context. Implementations: pattern (always
 * available, synchronous work) and, later, an LLM one that falls back to the
 * pattern per chunk on timeout or garbage.
 */
export interface Contextualizer {
  readonly name: string;
  /** Returns one context string per chunk, same order. Never rejects for bad input. */
  contextualize(chunks: readonly Chunk[]): Promise<string[]>;
}

export function createPatternContextualizer(): Contextualizer {
  return {
    name: 'pattern',
    async contextualize(chunks) {
      return chunks.map(patternContext);
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
