/**
 * KeywordQuery -> Elasticsearch search request, and hits -> KeywordHit.
 *
 * Scoring mirrors the SQLite index: a doc's score is the sum, over query
 * terms, of boost x the term's BM25 in each field x that field's weight.
 * Each term is a `term` query per field (never analyzed, so no query syntax
 * can be injected and a term matches exactly the indexed analyzer term), with
 * `boost = term boost x field weight`; a bool `should` sums them.
 */
import type { KeywordHit, KeywordTerm, SearchFilter } from '@codesift/stores';
// The subpath, not the package: the keyword rules without the SQLite store.
import { normalizeTerms as normalizeStoreTerms, type WeightedTerm } from '@codesift/stores/terms';
import type { estypes } from '@elastic/elasticsearch';
import { FIELD_WEIGHTS, TERM_FIELDS, type TermField } from './template.js';

export type { WeightedTerm };

/** Fields read back for a hit; the term fields are not in `_source` at all. */
export const HIT_SOURCE = [
  'id',
  'path',
  'language',
  'start_line',
  'end_line',
  'symbol',
  'kind',
] as const;

/**
 * Terms worth sending, the same rules as the SQLite store, for `term`
 * queries: lowercased, whitespace-free (see @codesift/stores normalizeTerms).
 */
export function normalizeTerms(terms: readonly KeywordTerm[]): WeightedTerm[] {
  return normalizeStoreTerms(terms, { exact: true });
}

/** Leaf `term` queries of one term: one per field, weighted. */
function termClause(t: WeightedTerm): estypes.QueryDslQueryContainer {
  const fields = Object.keys(FIELD_WEIGHTS) as TermField[];
  return {
    bool: {
      should: fields.map((f) => ({
        term: { [TERM_FIELDS[f]]: { value: t.term, boost: FIELD_WEIGHTS[f] } },
      })),
      // Lucene applies an outer boost by scaling each leaf's weight: the term's
      // boost multiplies its whole BM25 contribution, as in the SQLite store.
      boost: t.boost,
    },
  };
}

/** Filter clauses: languages as `terms`, path prefixes as `prefix` on the keyword `path`. */
export function filterClauses(filter: SearchFilter | undefined): {
  filter: estypes.QueryDslQueryContainer[];
  must_not: estypes.QueryDslQueryContainer[];
} {
  const out = {
    filter: [] as estypes.QueryDslQueryContainer[],
    must_not: [] as estypes.QueryDslQueryContainer[],
  };
  if (!filter) return out;
  if (filter.languages?.length) out.filter.push({ terms: { language: filter.languages } });
  if (filter.pathPrefixes?.length) {
    out.filter.push({
      bool: {
        should: filter.pathPrefixes.map((p) => ({ prefix: { path: { value: p } } })),
        minimum_should_match: 1,
      },
    });
  }
  for (const p of filter.excludePathPrefixes ?? [])
    out.must_not.push({ prefix: { path: { value: p } } });
  return out;
}

/** The search request (less `index`) for already normalized terms. */
export function buildSearch(
  terms: readonly WeightedTerm[],
  limit: number,
  filter?: SearchFilter,
): Omit<estypes.SearchRequest, 'index'> {
  const { filter: filters, must_not } = filterClauses(filter);
  const bool: estypes.QueryDslBoolQuery = {
    should: terms.map(termClause),
    // With filter clauses present, `should` would otherwise become optional.
    minimum_should_match: 1,
  };
  if (filters.length) bool.filter = filters;
  if (must_not.length) bool.must_not = must_not;
  return {
    size: limit,
    query: { bool },
    _source: { includes: [...HIT_SOURCE] },
    // Totals cost a full count of the matches; nobody reads them.
    track_total_hits: false,
  };
}

interface HitSource {
  id: string;
  path: string;
  language: string;
  start_line: number;
  end_line: number;
  symbol?: string | null;
  kind: string;
}

/**
 * Search hits as KeywordHits. ES scores are 32-bit floats printed as the
 * shortest decimal; Math.fround recovers the exact float, so ratios between
 * scores (a boost of 2 doubles a score) hold exactly.
 */
export function toKeywordHits(res: estypes.SearchResponse<unknown>): KeywordHit[] {
  return res.hits.hits.flatMap((h) => {
    const s = h._source as HitSource | undefined;
    if (!s) return [];
    return [
      {
        id: s.id ?? h._id,
        path: s.path,
        startLine: s.start_line,
        endLine: s.end_line,
        symbol: s.symbol ?? null,
        kind: s.kind,
        language: s.language,
        score: Math.fround(h._score ?? 0),
      },
    ];
  });
}
