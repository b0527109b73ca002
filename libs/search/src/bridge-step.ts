/**
 * The offline vocabulary bridge, between the LLM rewrite and retrieval:
 * what a natural-language query gets without a model. The vocabulary slice
 * the rewrite would send (symbols whose name parts or doc words match the
 * query's stems) is ranked by the repository's own statistics
 * (bridge-score.ts: name-part and doc-word overlap, co-occurrence of the
 * query's words and the identifiers in the index's chunks), and the best
 * few identifiers join the keyword side as OR terms below the user's words.
 *
 * Co-occurrence comes from the keyword store (KeywordIndex.cooccurrence:
 * the local index reads it from a table its writer keeps, or from its FTS
 * postings when the index has no such table). A store without it
 * (the cluster's Elasticsearch adapter, for now) skips the bridge and the
 * plan says so. The step never fails a search: an error leaves the plan's
 * terms as they were and names the step in `degraded`.
 */
import { analyzeQuery, isTestPath, wordStems } from '@codesift/analysis';
import { errorMessage } from '@codesift/core';
import { type ParsedQuery, parseQuery } from '@codesift/query';
import { ASSOC_MAX_WORD_SHARE, ASSOC_WORD } from '@codesift/stores';
import { type BridgeTerm, rankBridgeTerms } from './bridge-score.js';
import { withAddedTerms } from './planning/keyword-terms.js';
import type { QueryPlan } from './planning/types.js';
import { vocabularySlice } from './rewrite-step.js';
import type { SearchIndex } from './search-index.js';

/** Symbols ranked: the rewrite's slice size. */
export const BRIDGE_SLICE = 40;
/** A query word in more than this share of the chunks is not read for co-occurrence. */
export const MAX_WORD_SHARE = ASSOC_MAX_WORD_SHARE;

export type BridgeSources = Pick<SearchIndex, 'symbols' | 'keyword'>;

export interface BridgeOptions {
  /** Analyzer terms already searched (the user's own words), never bridged again. */
  exclude?: Iterable<string>;
  /** false: identifiers defined in test files are not bridged (an implementation question). */
  tests?: boolean;
}

export interface BridgeOutcome {
  /** The chosen identifiers, best first, with weights; empty when none qualified. */
  terms: BridgeTerm[];
  /** Symbols in the slice that were ranked. */
  candidates: number;
  /** Why nothing could be ranked (no words, a store without co-occurrence counts); null otherwise. */
  skipped: string | null;
}

/**
 * The bridged identifiers for a query (its text or its parse), with their
 * keyword weights: what the bridge step adds to a plan, for any caller
 * (query variants among them).
 */
export async function bridgeTerms(
  sources: BridgeSources,
  query: string | ParsedQuery,
  options: BridgeOptions = {},
): Promise<BridgeOutcome> {
  const parsed = typeof query === 'string' ? parseQuery(query) : query;
  // The question's own words: no filler, no identifiers (their parts would only
  // find the identifiers again), nothing from a stack trace.
  const prose = parsed.terms
    .filter((t) => !t.stop && t.trace === undefined && t.shape === 'word')
    .map((t) => t.value)
    .join(' ');
  const stems = wordStems(prose);
  const words = [...new Set(analyzeQuery(prose))].filter((w) => ASSOC_WORD.test(w));
  if (stems.length === 0 || words.length === 0) {
    return { terms: [], candidates: 0, skipped: 'no words to bridge' };
  }
  const cooccurrence = sources.keyword.cooccurrence?.bind(sources.keyword);
  if (!cooccurrence) {
    return {
      terms: [],
      candidates: 0,
      skipped: 'the keyword store counts no co-occurrence (the cluster, for now)',
    };
  }
  const slice = await vocabularySlice(sources.symbols, stems, BRIDGE_SLICE);
  const candidates = slice
    .filter((s) => options.tests !== false || !isTestPath(s.path, s.language))
    .map((s) => ({
      name: s.name,
      doc: s.doc,
      term: analyzeQuery(s.name)[0] ?? '',
    }));
  if (candidates.length === 0) return { terms: [], candidates: 0, skipped: null };
  const counts = await cooccurrence({
    words,
    terms: candidates.map((c) => c.term).filter((t) => t !== ''),
    maxShare: MAX_WORD_SHARE,
  });
  return {
    terms: rankBridgeTerms({ stems, words }, candidates, counts, new Set(options.exclude ?? [])),
    candidates: candidates.length,
    skipped: null,
  };
}

export interface Bridged {
  plan: QueryPlan;
  degraded: string[];
}

/** Runs the bridge for a plan that decided so; records what it did in `plan.bridge` and the reasons. */
export async function bridgeStep(
  plan: QueryPlan,
  parsed: ParsedQuery,
  sources: BridgeSources,
): Promise<Bridged> {
  const started = performance.now();
  const done = (patch: Partial<QueryPlan['bridge']>, degraded: string[] = []): Bridged => {
    const bridge = {
      ...plan.bridge,
      ...patch,
      ms: Math.round((performance.now() - started) * 1000) / 1000,
    };
    const next = withAddedTerms(
      plan,
      bridge.terms.map((t) => ({ term: t.term, weight: t.weight, source: 'bridge', from: t.name })),
    );
    return {
      plan: { ...next, bridge, reasons: [...next.reasons, `bridge: ${bridge.outcome}`] },
      degraded,
    };
  };
  if (plan.llmRewrite.terms.length > 0) {
    return done({ outcome: "skipped, the model's rewrite added terms" });
  }
  try {
    const searched = plan.keyword.terms.map((t) => t.term);
    const out = await bridgeTerms(sources, parsed, {
      exclude: searched,
      tests: plan.focus.focus !== 'implementation',
    });
    if (out.skipped !== null)
      return done({ candidates: out.candidates, outcome: `skipped, ${out.skipped}` });
    const outcome =
      out.terms.length === 0
        ? `no identifier of ${out.candidates} related to enough of the query's words`
        : `added ${out.terms.map((t) => `${t.name} (${t.why})`).join('; ')}`;
    return done({ terms: out.terms, candidates: out.candidates, outcome });
  } catch (err) {
    const reason = errorMessage(err);
    return done({ outcome: `failed, ${reason}` }, [`bridge: ${reason}`]);
  }
}
