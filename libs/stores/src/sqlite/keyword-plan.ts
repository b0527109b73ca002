/**
 * Which query terms a keyword search actually runs. FTS5 scores every row
 * any OR'ed term matches, and bm25() pays per phrase per row, so the cost
 * of a query is about the postings it touches and how many terms it has —
 * not its result size. A pasted bug report has hundreds of terms, and one
 * common term (`return`, `the`) can touch half the index while adding almost
 * nothing to the ranking. The plan keeps the terms that can change the top
 * results and bounds the work:
 *
 * 1. terms the index lacks are dropped (they match nothing);
 * 2. near-useless terms — in at least COMMON_TERM_RATIO of the chunks, where
 *    BM25's IDF is zero (FTS5 floors it at 1e-6) — are dropped as long as a
 *    more selective term remains;
 * 3. the rest are ranked by the most they can add to a score (boost x IDF,
 *    so rarer and higher-boosted first) and kept, best first, while the
 *    summed document frequency stays within the postings budget and the
 *    count within MAX_KEYWORD_TERMS. The best term is always kept.
 *
 * Kept terms are scored exactly as before (boosted sum of per-term BM25), so
 * a query whose terms all fit is answered exactly as without a plan.
 */
import type { WeightedTerm } from '../fts-query.js';

/** Queries with more unique terms keep the most useful MAX_KEYWORD_TERMS. */
export const MAX_KEYWORD_TERMS = 64;

/** A term in at least this share of the chunks has BM25 IDF <= 0 (see the module comment). */
export const COMMON_TERM_RATIO = 0.5;

/**
 * Most postings (summed document frequency of the kept terms) one query
 * reads. Measured on 50k chunks, 2 cores: FTS5 OR + bm25() costs about
 * 0.4–0.9 µs per posting, so 25k postings stay around 10–20 ms even in the
 * worst case; typical queries touch a few thousand.
 */
export const KEYWORD_POSTINGS_BUDGET = 25_000;

/**
 * Common-term pruning only pays off on large indexes. On a small one every
 * query is fast anyway, and a term in half of a handful of chunks is still
 * what a user typed: dropping it would drop the chunks only it matches.
 */
export const MIN_CHUNKS_FOR_COMMON_PRUNING = 2_000;

export interface TermPlan {
  /** Terms to run, best first. */
  terms: WeightedTerm[];
  /** Terms no chunk contains. */
  absent: string[];
  /** Dropped as too common while a more selective term remained. */
  common: string[];
  /** Dropped by the postings budget or the term cap. */
  overBudget: string[];
  /** Summed document frequency of the kept terms. */
  postings: number;
}

export interface PlanOptions {
  maxTerms?: number;
  postingsBudget?: number;
}

/** The summed document frequency of `terms`: the postings a query over them reads. */
export function postingsOf(
  terms: readonly WeightedTerm[],
  df: ReadonlyMap<string, number>,
): number {
  let postings = 0;
  for (const t of terms) postings += df.get(t.term) ?? 0;
  return postings;
}

/** BM25 IDF as FTS5 computes it (floored at 1e-6), so ranking follows the real scores. */
export function idf(df: number, total: number): number {
  const v = Math.log((total - df + 0.5) / (df + 0.5));
  return Math.max(v, 1e-6);
}

export function planTerms(
  terms: readonly WeightedTerm[],
  df: ReadonlyMap<string, number>,
  total: number,
  opts: PlanOptions = {},
): TermPlan {
  const maxTerms = opts.maxTerms ?? MAX_KEYWORD_TERMS;
  const budget = opts.postingsBudget ?? KEYWORD_POSTINGS_BUDGET;
  const plan: TermPlan = { terms: [], absent: [], common: [], overBudget: [], postings: 0 };
  const present: { t: WeightedTerm; df: number; impact: number }[] = [];
  for (const t of terms) {
    const d = df.get(t.term) ?? 0;
    if (d <= 0) plan.absent.push(t.term);
    else present.push({ t, df: d, impact: t.boost * idf(d, total) });
  }
  const isCommon = (d: number) => d >= total * COMMON_TERM_RATIO;
  const selective = present.filter((x) => !isCommon(x.df));
  let candidates = present;
  if (
    total >= MIN_CHUNKS_FOR_COMMON_PRUNING &&
    selective.length > 0 &&
    selective.length < present.length
  ) {
    for (const x of present) if (isCommon(x.df)) plan.common.push(x.t.term);
    candidates = selective;
  }
  // Stable on ties: the caller's order (the query's order) breaks them.
  candidates.sort((a, b) => b.impact - a.impact || a.df - b.df);
  for (const x of candidates) {
    const fits = plan.terms.length < maxTerms && plan.postings + x.df <= budget;
    if (plan.terms.length === 0 || fits) {
      plan.terms.push(x.t);
      plan.postings += x.df;
    } else {
      plan.overBudget.push(x.t.term);
    }
  }
  return plan;
}
