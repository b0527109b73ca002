export {
  BULK_BATCH_CHARS,
  BULK_BATCH_DOCS,
  bulkOperations,
  type ChunkInput,
  checkBulkResponse,
  type KeywordSource,
  SourceBuilder,
  type StoredChunk,
} from './bulk.js';
export {
  CHUNK_SOURCE,
  ElasticsearchChunkStore,
  type ElasticsearchChunkStoreOptions,
  MGET_BATCH_IDS,
} from './chunk-store.js';
export { toCodesiftError } from './errors.js';
export {
  ElasticsearchFileTexts,
  type ElasticsearchFileTextsOptions,
  type FileTextSource,
} from './file-texts.js';
export {
  ElasticsearchIndexMeta,
  type ElasticsearchIndexMetaOptions,
  META_DOC_ID,
  type MetaSource,
  UPDATED_DOC_ID,
  type VersionedMeta,
} from './index-meta.js';
export { checkCompatible, ensureIndexWith, type IndexBody } from './indices.js';
export {
  ElasticsearchKeywordIndex,
  type ElasticsearchKeywordIndexOptions,
  type RefreshPolicy,
  type StaleChunks,
  staleChunksQuery,
} from './keyword-index.js';
export {
  ElasticsearchManifest,
  type ElasticsearchManifestOptions,
  type ManifestSource,
  manifestDocId,
  toManifestSource,
} from './manifest.js';
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
  fileTextIndexBody,
  type KeywordIndexSettingsOptions,
  keywordIndexBody,
  keywordIndexTemplate,
  manifestIndexBody,
  metaIndexBody,
  TERM_FIELDS,
  type TermField,
} from './template.js';
export { MAX_ES_QUERY_TERMS, planTerms, termStatsRequest } from './term-plan.js';
