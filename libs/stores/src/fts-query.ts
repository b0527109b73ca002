/**
 * Turns KeywordQuery terms into FTS5 MATCH expressions. Every term becomes a
 * double-quoted FTS5 string (inner quotes doubled), so no term can inject
 * FTS5 syntax (`OR`, `NEAR(`, `col:`, `*`, `^`, parentheses).
 *
 * FTS5's bm25() has no per-term boost, but its score is a sum of per-phrase
 * contributions (each phrase's IDF and term frequency are computed on their
 * own). So terms are grouped by boost, each group is one MATCH expression,
 * and the caller sums `boost * bm25(group)` per row: exactly the boosted
 * BM25 of the whole query.
 */
import { MAX_TERM_LENGTH } from '@codesift/analysis';
import type { KeywordTerm } from './ports.js';

export interface WeightedTerm {
  term: string;
  boost: number;
}

export interface MatchGroup {
  boost: number;
  /** FTS5 MATCH expression: quoted terms joined by OR. */
  match: string;
}

const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;

export interface NormalizeTermsOptions {
  /**
   * For term queries that bypass the index's analyzer (Elasticsearch `term`):
   * lowercase (the index lowercases), and drop terms holding whitespace
   * (analyzer terms never do, so such a term matches nothing). FTS5 runs
   * its own tokenizer over a quoted term, so the SQLite store leaves both.
   */
  exact?: boolean;
}

/**
 * Drops terms that cannot match (empty, no letter or digit, longer than any
 * indexed term, boost <= 0 or not finite) and merges duplicates, keeping the
 * highest boost. Order of first occurrence is kept. One set of rules for
 * every keyword store.
 */
export function normalizeTerms(
  terms: readonly KeywordTerm[],
  opts: NormalizeTermsOptions = {},
): WeightedTerm[] {
  const byTerm = new Map<string, WeightedTerm>();
  for (const t of terms) {
    const boost = t.boost ?? 1;
    if (!(boost > 0) || !Number.isFinite(boost)) continue;
    if (typeof t.term !== 'string' || t.term.length === 0 || t.term.length > MAX_TERM_LENGTH) {
      continue;
    }
    if (!HAS_WORD_CHAR.test(t.term)) continue;
    if (opts.exact && /\s/u.test(t.term)) continue;
    const term = opts.exact ? t.term.toLowerCase() : t.term;
    const prev = byTerm.get(term);
    if (prev) prev.boost = Math.max(prev.boost, boost);
    else byTerm.set(term, { term, boost });
  }
  return [...byTerm.values()];
}

/** An FTS5 string literal for `term`: the tokenizer sees the term, the parser sees no syntax. */
export function quoteTerm(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** One MATCH expression per distinct boost, highest boost first. */
export function groupByBoost(terms: readonly WeightedTerm[]): MatchGroup[] {
  const groups = new Map<number, string[]>();
  for (const t of terms) {
    const list = groups.get(t.boost);
    if (list) list.push(quoteTerm(t.term));
    else groups.set(t.boost, [quoteTerm(t.term)]);
  }
  return [...groups.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([boost, quoted]) => ({ boost, match: quoted.join(' OR ') }));
}
