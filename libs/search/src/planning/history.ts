/**
 * Whether a query also reads the repository's change history (the commits
 * whose messages match it name files; history-prior.ts fuses them in), and
 * with what. Off for an identifier-only query: it asks for a definition,
 * which the definitions boost puts first, and a file that merely changed
 * with similar words must not pass it.
 */
import type { QueryPlan } from './types.js';

/** Commits read per query, best-matching first. */
export const HISTORY_COMMITS = 30;
/** A commit changing more indexed non-test files than this is a sweep, not a pointer. */
export const HISTORY_MAX_FILES = 20;
/**
 * Rank fusion of the ranking with the history's file list: an item at rank
 * i (1-based) and its file at history rank r score 1/(k + i) + weight/(k + r).
 * At weight 0.3 and k 5, the history's first file moves up at most about
 * two places of the first five, so it reorders near ties and never buries
 * what the code side found (docs/EVALUATION.md, the history round).
 */
export const HISTORY_WEIGHT = 0.3;
export const HISTORY_RRF_K = 5;

export function planHistory(
  terms: QueryPlan['keyword']['terms'],
  identifierOnly: boolean,
  on: boolean,
): { plan: QueryPlan['history']; reason: string } {
  const own = [...new Set(terms.filter((t) => t.source === 'original').map((t) => t.term))];
  const settings = {
    commits: HISTORY_COMMITS,
    maxFiles: HISTORY_MAX_FILES,
    weight: HISTORY_WEIGHT,
    k: HISTORY_RRF_K,
  };
  const off = (why: string) => ({
    plan: { enabled: false, terms: [], ...settings },
    reason: `history: off, ${why}`,
  });
  if (!on) return off('switched off');
  if (identifierOnly) return off('an identifier-only query asks for its definition');
  if (own.length === 0) return off("no words of the query's own");
  return {
    plan: { enabled: true, terms: own, ...settings },
    reason: `history: the files of the ${HISTORY_COMMITS} commits whose messages best match the query's ${own.length} own terms, rank-fused at weight ${HISTORY_WEIGHT} (k ${HISTORY_RRF_K})`,
  };
}
