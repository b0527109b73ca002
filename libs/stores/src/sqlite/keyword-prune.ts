/**
 * Exact top-k pruning for the keyword side. FTS5's bm25() costs about
 * 0.7 µs per matched row and term group (a docsize read and a walk of the
 * row's position lists), finding the rows costs a tenth of that, so a
 * pasted report whose terms match 20,000 rows spends most of its keyword
 * time scoring rows that cannot reach the top `limit`. The answer must not
 * change, so only rows that provably cannot reach it are skipped:
 *
 * 1. A term's share of any row's score is below boost x IDF x (k1 + 1)
 *    (BM25's term-frequency part tends to k1 + 1 and never reaches it).
 *    A row holding only terms from a set S scores below the sum of their
 *    bounds.
 * 2. A probe — the same search over the plan's leading (most selective,
 *    highest-impact) terms only — gives a floor: each term group's score
 *    sums its terms in plan order, so the probe's sum is a prefix of the
 *    full sum and, every share being >= 0, no larger. Its k-th best score
 *    is therefore at most the full search's k-th best.
 * 3. The lowest-bound terms whose bounds sum below that floor form S: a
 *    row holding none of the other terms (the required ones) cannot reach
 *    the top k, so the full search scores only rows holding a required term,
 *    each exactly as before (the same groups, the same bm25() call).
 *
 * When any step cannot conclude (a small query, a probe with fewer than k
 * rows, nothing skippable) the search runs unpruned.
 */
import type { WeightedTerm } from '../fts-query.js';
import { idf, postingsOf } from './keyword-plan.js';

/** FTS5's bm25() k1 (fts5_aux.c): a term's share of a row's score stays below IDF x (k1 + 1). */
export const FTS5_BM25_K1 = 1.2;

/**
 * Queries whose kept terms touch fewer postings run unpruned: the probe
 * would cost about what it saves.
 */
export const PRUNE_MIN_POSTINGS = 4_000;

/**
 * Indexes with fewer chunks search unpruned. On the gRPC benchmark's 6,875
 * chunks 12 of 18 probes concluded nothing (the k-th best score there is
 * near the bounds of the common terms) and the keyword step took 2-6 %
 * longer; on the 100k corpus 2 of 31 did, and it took 0.3-0.7 times as long.
 * With no size floor, the store's CPU per keyword search, pruned over
 * unpruned: 4,123 chunks (xarray's issue titles) 1.11, 6,875 (the gRPC mix)
 * 1.06, 13,750 (the same mix, twice the modules) 1.01, 28,904 (sympy's
 * titles) 0.86, 102,000 (the scale corpus) 0.65: it starts to pay between
 * 14k and 29k chunks, so the floor stays here.
 */
export const PRUNE_MIN_CHUNKS = 20_000;

/** The probe takes the plan's leading terms while their postings stay within this. */
export const PROBE_POSTINGS = 2_000;

/**
 * Pruning pays when the rows it may skip are many: the left-out terms must
 * hold at least this share of the postings, or the search runs unpruned
 * (finding the rows that hold a required term has its own cost).
 */
export const MIN_SKIPPED_SHARE = 0.5;

/**
 * Slack on every comparison with a floor: floating-point sums in another
 * order, and a chunk count that may lag FTS5's own by a few rows, move a
 * bound by far less than this.
 */
const MARGIN = 1e-6;

/** The most one term can add to a row's boosted score (above, with slack). */
export function termBound(boost: number, df: number, total: number): number {
  // IDF grows with the row count: a count above FTS5's keeps the bound above.
  return boost * idf(df, total * (1 + MARGIN) + 1) * (FTS5_BM25_K1 + 1) * (1 + MARGIN);
}

/**
 * The probe: the plan's leading terms (it orders them by impact, most
 * first) while their postings stay within PROBE_POSTINGS. null when the
 * probe could not conclude: the index or the query is too small to prune, no term or
 * every term fits, the probe's terms hold fewer than `limit` rows, or even
 * the highest floor they could give (every probe term's bound at once)
 * would leave out too little (requiredTerms).
 */
export function probeTerms(
  terms: readonly WeightedTerm[],
  df: ReadonlyMap<string, number>,
  total: number,
  limit: number,
): WeightedTerm[] | null {
  if (total < PRUNE_MIN_CHUNKS) return null;
  if (postingsOf(terms, df) < PRUNE_MIN_POSTINGS) return null;
  const probe: WeightedTerm[] = [];
  let probed = 0;
  let highestFloor = 0;
  for (const t of terms) {
    const d = df.get(t.term) ?? 0;
    if (probed + d > PROBE_POSTINGS) break;
    probe.push(t);
    probed += d;
    highestFloor += termBound(t.boost, d, total);
  }
  if (probe.length === 0 || probe.length === terms.length || probed < limit) return null;
  return requiredTerms(terms, df, total, highestFloor) === null ? null : probe;
}

/**
 * The terms a row must hold one of to be scored, given a floor no larger
 * than the k-th best score: every term but the lowest-bound ones whose
 * bounds sum below the floor. null when too few postings can be left out
 * (MIN_SKIPPED_SHARE).
 */
export function requiredTerms(
  terms: readonly WeightedTerm[],
  df: ReadonlyMap<string, number>,
  total: number,
  floor: number,
): WeightedTerm[] | null {
  const limit = floor * (1 - MARGIN);
  const bounded = terms.map((t) => ({ t, bound: termBound(t.boost, df.get(t.term) ?? 0, total) }));
  bounded.sort((a, b) => a.bound - b.bound);
  const skipped = new Set<WeightedTerm>();
  let sum = 0;
  let skippedPostings = 0;
  for (const { t, bound } of bounded) {
    if (sum + bound >= limit) break;
    sum += bound;
    skipped.add(t);
    skippedPostings += df.get(t.term) ?? 0;
  }
  if (
    skipped.size === terms.length ||
    skippedPostings < postingsOf(terms, df) * MIN_SKIPPED_SHARE
  ) {
    return null;
  }
  return terms.filter((t) => !skipped.has(t));
}
