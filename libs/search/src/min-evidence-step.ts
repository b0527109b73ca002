/**
 * The minimum-evidence step (planning/min-evidence.ts says why). Whether
 * one of the evidence terms is in the index is asked of the store beside
 * retrieval (startEvidenceCheck), so it adds no latency; after retrieval
 * the fused hits are kept when it is, or when the best vector similarity
 * clears the index's noise floor (noise-floor.ts), and dropped otherwise.
 * The outcome is written into the plan, so `--explain` and the JSON plan
 * show what was decided. A check that fails keeps the results: the rule
 * guards against nonsense, it must never cost a real answer.
 */
import { errorMessage } from '@codesift/core';
import { evidenceTerms } from './planning/min-evidence.js';
import type { QueryPlan } from './planning/types.js';
import type { Fused } from './ranking.js';
import type { SearchIndex } from './search-index.js';

export interface EvidenceJudging {
  /** startEvidenceCheck's answer; null when the keyword hits themselves tell. */
  ownIndexed: Promise<boolean> | null;
  /** Whether the keyword side answered: when it failed, its hits tell nothing. */
  keywordAnswered: boolean;
  /** The index's noise floor; null when there is no vector side to judge. */
  noiseFloor: (() => Promise<number | null>) | null;
}

const NOTHING: Fused = { hits: [], candidates: [], keywordById: new Map() };

/**
 * A store that counts no terms (the cluster's Elasticsearch adapter, for
 * now) cannot say cheaply whether a term exists: asking it with a search of
 * its own would add a remote call to every query. The rule is not applied
 * there, as the bridge is skipped there, and the plan says so.
 */
const COUNTLESS_STORE: Promise<boolean> = Promise.reject(
  new Error('the keyword store counts no terms'),
);
COUNTLESS_STORE.catch(() => {});

/**
 * Asks the store whether an evidence term is in the index, or null when no
 * question is needed: the rule is off, or the keyword side searches the
 * evidence terms alone in one view (then any keyword hit holds one, and no
 * hit means none is indexed). The local index answers from its term counts
 * (a lookup per term, no postings read). Counts ignore the filter: a term
 * outside the filtered paths still counts, which can only keep results,
 * never drop a real answer.
 */
export function startEvidenceCheck(
  plan: QueryPlan,
  keyword: SearchIndex['keyword'],
): Promise<boolean> | null {
  if (!plan.evidence.enabled) return null;
  const terms = evidenceTerms(plan);
  if (terms.length === 0) return null;
  const own = new Set(terms);
  const oneView = plan.variants.list.length <= 1;
  if (oneView && plan.keyword.terms.every((t) => own.has(t.term))) return null;
  if (!keyword.cooccurrence) return COUNTLESS_STORE;
  const asked = keyword
    .cooccurrence({ words: terms, terms: [], maxShare: 0 })
    .then((c) => terms.some((t) => (c.df[t] ?? 0) > 0));
  // Awaited only when there are hits to judge; a rejection then is handled there.
  asked.catch(() => {});
  return asked;
}

export async function minEvidenceStep(
  plan: QueryPlan,
  fused: Fused,
  judging: EvidenceJudging,
): Promise<{ plan: QueryPlan; fused: Fused }> {
  const rule = plan.evidence;
  const asked = rule.enabled ? evidenceTerms(plan) : [];
  if (asked.length === 0 || fused.hits.length === 0) return { plan, fused };
  const noted = (outcome: QueryPlan['evidence']['outcome'], reason: string | null) => ({
    ...plan,
    evidence: { ...rule, outcome },
    reasons: reason === null ? plan.reasons : [...plan.reasons, reason],
  });
  const unjudged = (why: string) => ({ plan: noted(null, `evidence: not judged, ${why}`), fused });
  let own: boolean;
  if (judging.ownIndexed === null) {
    if (!judging.keywordAnswered) return unjudged('the keyword side did not answer');
    own = fused.keywordById.size > 0;
  } else {
    try {
      own = await judging.ownIndexed;
    } catch (err) {
      return unjudged(errorMessage(err));
    }
  }
  if (own)
    return { plan: noted({ kind: 'own-terms', similarity: null, floor: null }, null), fused };

  let similarity: number | null = null;
  for (const h of fused.hits) {
    if (h.vector !== null && (similarity === null || h.vector > similarity)) similarity = h.vector;
  }
  let floor: number | null = null;
  if (similarity !== null && judging.noiseFloor) {
    try {
      floor = await judging.noiseFloor();
    } catch (err) {
      return unjudged(`the noise floor could not be measured: ${errorMessage(err)}`);
    }
  }
  const terms = asked.join(' ');
  if (similarity !== null && floor !== null && similarity > floor) {
    return {
      plan: noted(
        { kind: 'vector', similarity, floor },
        `evidence: none of the query's own terms (${terms}) is in the index; kept for the vector similarity ${round(similarity)} above the index's noise floor ${round(floor)}`,
      ),
      fused,
    };
  }
  const vectorPart =
    similarity === null
      ? ''
      : floor === null
        ? ', and the vector side has no noise floor to clear'
        : ` and the best vector similarity ${round(similarity)} is not above the index's noise floor ${round(floor)}`;
  return {
    plan: noted(
      { kind: 'none', similarity, floor },
      `evidence: none of the query's own terms (${terms}) is in the index${vectorPart}: no results (matches of identifier parts or synonyms alone are not evidence)`,
    ),
    fused: NOTHING,
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
