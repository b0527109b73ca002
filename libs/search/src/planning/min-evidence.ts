/**
 * The minimum-evidence rule (issue 15): a query whose own words match
 * nothing in the index answers with no results, not with the best of what
 * its identifier parts or synonyms happen to match. `FrobnicateWidgetQuux`
 * must not return a test that mentions `--frobnicate` at full score only
 * because the keyword side also searched the part `frobnicate`.
 *
 * The query's own terms are its words and its identifiers in any spelling
 * (`addEdge`, `add_edge`, `add-edge`), and the segments of a qualified name
 * or path (`Rack` and `Reader` of `Rack::Reader`, `src` of `src/a.ts`):
 * the user wrote each of them whole. The sub-words of one identifier
 * (`frobnicate` of `FrobnicateWidget`) and synonyms are guesses made from
 * them, and so are the bridge's statistical neighbours: useful to rank, no
 * proof that the thing asked for exists. The LLM's terms count (the
 * rewrite's, and the words of its phrasings: see evidenceTerms): the model
 * read the query and said what it means. So
 * evidence is one of these terms somewhere in the index, or on the vector
 * side a similarity above the noise floor the index itself shows for text
 * without meaning (noise-floor.ts): an embedding always has nearest
 * neighbours, so their mere existence proves nothing.
 */
import type { PlannedTerm, QueryPlan } from './types.js';

/** The sources that are the user's own text, not a guess made from it. */
const OWN_SOURCES: ReadonlySet<PlannedTerm['source']> = new Set(['original', 'case-variant']);

/** What separates the segments of a qualified name or path; `_`, `-` and `$` join words of one identifier. */
const SEGMENT_SEPARATOR = /[^\p{L}\p{N}_$-]+/u;

export function planEvidence(
  terms: readonly PlannedTerm[],
  enabled: boolean,
): QueryPlan['evidence'] {
  const ownTerms = enabled ? [...new Set(terms.filter(isOwn).map((t) => t.term))] : [];
  return { enabled, ownTerms, outcome: null };
}

function isOwn(t: PlannedTerm): boolean {
  if (OWN_SOURCES.has(t.source)) return true;
  if (t.source !== 'identifier-part') return false;
  return t.from
    .split(SEGMENT_SEPARATOR)
    .some((segment) => segment !== t.from && segment.toLowerCase() === t.term);
}

/**
 * The terms whose presence in the index is evidence now: the own terms, the
 * LLM rewrite's terms, and the own words of the model's phrasings (the
 * variants of kind 'phrasing'), known only once those steps ran.
 */
export function evidenceTerms(plan: QueryPlan): string[] {
  const rewrite = plan.keyword.terms.filter((t) => t.source === 'rewrite').map((t) => t.term);
  const phrasings = plan.variants.list
    .filter((v) => v.kind === 'phrasing')
    .flatMap((v) => v.keyword.filter(isOwn).map((t) => t.term));
  return [...new Set([...plan.evidence.ownTerms, ...rewrite, ...phrasings])];
}

/** The plan's reason line for the rule. */
export function evidenceReason(evidence: QueryPlan['evidence']): string {
  if (!evidence.enabled) {
    return 'evidence: off (any match counts, identifier parts and synonyms too)';
  }
  return `evidence: a result needs one of the query's own terms (${evidence.ownTerms.join(' ')}) in the index, or a vector similarity above the index's noise floor; parts of one identifier and synonyms alone are not evidence`;
}

/**
 * Why a search that matched something answers with nothing, for a person or
 * an agent (the CLI's and MCP's "no results" line), or null when the rule did
 * not refuse it. Worded for readers of results, not of plans: the plan's
 * reason line keeps the terms and the numbers.
 */
export function noEvidenceExplanation(
  plan: Pick<QueryPlan, 'evidence'> | undefined,
): string | null {
  const outcome = plan?.evidence?.outcome;
  if (outcome?.kind !== 'none') return null;
  const vector =
    outcome.similarity === null
      ? ''
      : ', and no vector hit is closer than text without meaning gets';
  return `none of its own words or identifiers is in the index${vector} (matches of identifier parts or synonyms alone do not count)`;
}
