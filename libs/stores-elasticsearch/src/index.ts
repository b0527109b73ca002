export {
  BULK_BATCH_CHARS,
  BULK_BATCH_DOCS,
  bulkOperations,
  checkBulkResponse,
  type KeywordSource,
  SourceBuilder,
} from './bulk.js';
export { toCodesiftError } from './errors.js';
export {
  ElasticsearchKeywordIndex,
  type ElasticsearchKeywordIndexOptions,
  type RefreshPolicy,
} from './keyword-index.js';
export {
  buildSearch,
  filterClauses,
  normalizeTerms,
  toKeywordHits,
  type WeightedTerm,
} from './query-builder.js';
export {
  BM25,
  ES_SCHEMA_VERSION,
  FIELD_WEIGHTS,
  type KeywordIndexSettingsOptions,
  keywordIndexBody,
  keywordIndexTemplate,
  TERM_FIELDS,
  type TermField,
} from './template.js';
export { MAX_ES_QUERY_TERMS, planTerms, termStatsRequest } from './term-plan.js';
