import type { Chunk } from '@codesift/core';
import { MAX_CONTEXT_CHARS } from './pattern.js';

/** Why a model's context sentence was not used. */
export type ContextRejection = 'empty' | 'too-long' | 'repeats-code' | 'not-prose';

const MIN_WORDS = 3;
/** A code line at least this long, found verbatim in the answer, means the answer quotes code. */
const QUOTED_LINE_CHARS = 20;
/** Share of letters, digits, spaces and sentence punctuation a prose answer has at least. */
const MIN_PROSE_SHARE = 0.85;

/**
 * Checks a context the model wrote for `chunk`; null when it can be used.
 * The context is indexed beside the code, so an answer that echoes the code
 * or is not a sentence would only add noise.
 */
export function rejectContext(text: string, chunk: Chunk): ContextRejection | null {
  const clean = text.trim();
  if (!/[\p{L}\p{N}]/u.test(clean)) return 'empty';
  if (clean.length > MAX_CONTEXT_CHARS) return 'too-long';
  if (quotesCode(clean, chunk.content)) return 'repeats-code';
  if (!isProse(clean)) return 'not-prose';
  return null;
}

function quotesCode(text: string, code: string): boolean {
  if (text.length >= QUOTED_LINE_CHARS && code.includes(text)) return true;
  for (const line of code.split('\n')) {
    const l = line.trim();
    if (l.length >= QUOTED_LINE_CHARS && /[^\p{L}\p{N}\s]/u.test(l) && text.includes(l))
      return true;
  }
  return false;
}

function isProse(text: string): boolean {
  if (text.includes('```') || text.split('\n').length > 3) return false;
  if (text.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length < MIN_WORDS) return false;
  const proseChars = text.match(/[\p{L}\p{N}\s.,;:'"()!?`_-]/gu)?.length ?? 0;
  return proseChars / text.length >= MIN_PROSE_SHARE;
}
