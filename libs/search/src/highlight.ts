/**
 * Query-term highlighting for any surface that shows snippets (CLI, MCP).
 * A word is highlighted when the analyzer (the one indexing uses) turns it
 * into a query term, so `addEdge` lights up for the query "add edge" and
 * `add_edge` for "addEdge", exactly as they matched.
 */
import { analyze, analyzeQuery } from '@codesift/analysis';

const WORD = /[\p{L}\p{N}_$]+/gu;

/** The query's analyzed terms, as the keyword side searched for them. */
export function queryTerms(query: string): Set<string> {
  return new Set(analyzeQuery(query));
}

/** Wraps each word of `line` that yields a query term with `mark`. */
export function highlightTerms(
  line: string,
  terms: ReadonlySet<string>,
  mark: (word: string) => string,
): string {
  if (terms.size === 0) return line;
  return line.replace(WORD, (word) =>
    analyze(word).some((t) => terms.has(t)) ? mark(word) : word,
  );
}
