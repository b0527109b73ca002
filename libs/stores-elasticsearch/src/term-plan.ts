/**
 * Bounding long queries. A pasted stack trace or bug report yields hundreds
 * of terms; one `term` query per term and field would exceed Lucene's clause
 * limit (at least 1024 per query) and cost work for terms no chunk contains.
 * Like the SQLite store's plan, queries with more than MAX_ES_QUERY_TERMS
 * unique terms first ask ES for document frequencies — one `_termvectors`
 * request on an artificial document holding the terms, which returns each
 * term's doc_freq per field — then drop absent terms and keep the
 * MAX_ES_QUERY_TERMS that can add the most to a score (boost x weight x IDF,
 * so rarer and higher-boosted first). Kept terms are scored as usual.
 */
import type { estypes } from '@elastic/elasticsearch';
import type { WeightedTerm } from './query-builder.js';
import { FIELD_WEIGHTS, TERM_FIELDS, type TermField } from './template.js';

/** Same cap as the SQLite store's MAX_KEYWORD_TERMS: 64 terms x 4 fields = 256 clauses. */
export const MAX_ES_QUERY_TERMS = 64;

/** The `_termvectors` request (less `index`) asking for every term's document frequency. */
export function termStatsRequest(
  terms: readonly WeightedTerm[],
): Omit<estypes.TermvectorsRequest<unknown>, 'index'> {
  const text = terms.map((t) => t.term).join(' ');
  return {
    doc: { terms: { code: text, symbol: text, path: text, context: text } },
    term_statistics: true,
    field_statistics: true,
    positions: false,
    offsets: false,
    payloads: false,
  };
}

/** Lucene's BM25 IDF. */
function idf(df: number, docCount: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/**
 * The terms to run, in their original order: present in at least one field,
 * at most `maxTerms`, the most useful first when there are more.
 */
export function planTerms(
  terms: readonly WeightedTerm[],
  res: estypes.TermvectorsResponse,
  maxTerms = MAX_ES_QUERY_TERMS,
): WeightedTerm[] {
  const fields = Object.keys(FIELD_WEIGHTS) as TermField[];
  const useful: { t: WeightedTerm; i: number; value: number }[] = [];
  terms.forEach((t, i) => {
    let best = 0;
    let present = false;
    for (const f of fields) {
      const tv = res.term_vectors?.[TERM_FIELDS[f]];
      const df = tv?.terms[t.term]?.doc_freq ?? 0;
      if (df <= 0) continue;
      present = true;
      const docCount = tv?.field_statistics?.doc_count ?? df;
      best = Math.max(best, FIELD_WEIGHTS[f] * idf(df, docCount));
    }
    if (present) useful.push({ t, i, value: t.boost * best });
  });
  return useful
    .sort((a, b) => b.value - a.value || a.i - b.i)
    .slice(0, maxTerms)
    .sort((a, b) => a.i - b.i)
    .map((u) => u.t);
}
