/**
 * SearchEngine.vocabulary over a symbol store: the most frequent names, or
 * with `terms` the names relevant to those words (the slice the LLM rewrite
 * sends, see rewrite-step.ts). Written once for the engine and for the
 * cluster's query service, whose symbols come from the symbol service, so
 * that GetVocabulary answers the same in both.
 */
import { wordStems } from '@codesift/analysis';
import type { SymbolIndex } from '@codesift/stores';
import { vocabularySlice } from './rewrite-step.js';

export interface VocabularyRequest {
  prefix?: string;
  limit?: number;
  terms?: string[];
}

export async function listVocabulary(
  symbols: Pick<SymbolIndex, 'lookup' | 'vocabulary' | 'related'>,
  options?: VocabularyRequest,
): Promise<{ name: string; count: number }[]> {
  const words = wordStems((options?.terms ?? []).join(' '));
  if (words.length === 0) return symbols.vocabulary(options);
  const prefix = options?.prefix?.toLowerCase() ?? '';
  const slice = await vocabularySlice(symbols, words, options?.limit);
  const names = slice.map((s) => s.name).filter((n) => n.toLowerCase().startsWith(prefix));
  // The slice holds one symbol per name; the count is the name's own.
  return Promise.all(
    names.map(async (name) => {
      const same = await symbols.vocabulary({ prefix: name, limit: 50 });
      return { name, count: same.find((v) => v.name === name)?.count ?? 1 };
    }),
  );
}
