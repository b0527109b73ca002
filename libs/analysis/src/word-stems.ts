import { STOPWORDS, splitIdentifier } from './analyze.js';

/**
 * Loose word stems for matching a question against symbol names and doc
 * comments (not the BM25 analyzer): identifiers split at case and
 * separators, lowercased, stopwords and words under 3 letters left out, a
 * plural "s" dropped ("edges" and "addEdge" share "edge"). Distinct, in
 * order of appearance.
 */
export function wordStems(text: string): string[] {
  const out = new Set<string>();
  for (const token of text.split(/\s+/)) {
    for (const part of splitIdentifier(token)) {
      if (part.length < 3 || STOPWORDS.has(part)) continue;
      out.add(
        part.length > 3 && part.endsWith('s') && !part.endsWith('ss') ? part.slice(0, -1) : part,
      );
    }
  }
  return [...out];
}
