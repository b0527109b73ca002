/**
 * The keyword side's terms. With expansion on they come from
 * expandForKeywords: the user's words at weight 1, identifier parts and
 * case variants at 0.5, synonyms at 0.3 of the word they expand (see
 * @codesift/query expand.ts). With expansion off they are the analyzer
 * terms of the user's words (filters and filler words left out), all at
 * weight 1: what the engine searched before query planning, so switching
 * expansion off is a clean ablation.
 *
 * Expansion is keyword-side only; the vector side never sees these terms.
 */
import { analyzeQuery } from '@codesift/analysis';
import {
  type ExpandedTerm,
  expandForKeywords,
  type ParsedQuery,
  type SynonymTable,
} from '@codesift/query';
import type { PlannedTerm, QueryPlan } from './types.js';

const NO_SYNONYMS: SynonymTable = Object.freeze({});

export function keywordTerms(
  parsed: ParsedQuery,
  expansion: boolean,
  synonyms: SynonymTable,
): PlannedTerm[] {
  let terms: ExpandedTerm[] = expansion
    ? expandForKeywords(parsed, synonyms)
    : expandForKeywords(parsed, NO_SYNONYMS, { identifierPart: 1 }).filter(
        (t) => t.source !== 'case-variant',
      );
  if (!expansion) terms = terms.map((t) => ({ ...t, weight: 1 }));
  if (terms.length > 0) return terms.map(copyTerm);
  // Only filler words ("what is this"): search them rather than nothing.
  return [...new Set(analyzeQuery(parsed.text))].map((term) => ({
    term,
    weight: 1,
    source: 'original',
    from: term,
  }));
}

function copyTerm(t: ExpandedTerm): PlannedTerm {
  return { term: t.term, weight: t.weight, source: t.source, from: t.from };
}

/**
 * The plan with more keyword OR terms (the LLM rewrite's, the bridge's),
 * each after the terms it already searches; a term it already has keeps its
 * first weight and source.
 */
export function withAddedTerms(plan: QueryPlan, more: readonly PlannedTerm[]): QueryPlan {
  const have = new Set(plan.keyword.terms.map((t) => t.term));
  const added: PlannedTerm[] = [];
  for (const t of more) {
    if (have.has(t.term)) continue;
    have.add(t.term);
    added.push(t);
  }
  return { ...plan, keyword: { ...plan.keyword, terms: [...plan.keyword.terms, ...added] } };
}
