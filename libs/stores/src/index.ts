export { defaultIndexPath, rootOfIndexFile } from './index-root.js';
export type { FileCommit, IndexMeta, IndexStats, LocalIndex } from './local-index.js';
export type {
  ChunkStore,
  Cooccurrence,
  CooccurrenceQuery,
  FileTextStore,
  HistoryCommit,
  HistoryIndex,
  HistoryMatch,
  KeywordDoc,
  KeywordHit,
  KeywordIndex,
  KeywordQuery,
  KeywordTerm,
  Manifest,
  SearchFilter,
  SymbolIndex,
  SymbolLookupOptions,
  VectorHit,
  VectorIndex,
  VectorQuery,
  VectorRecord,
  VocabularyOptions,
} from './ports.js';
export {
  ASSOC_MAX_TERM_SHARE,
  ASSOC_MAX_WORD_SHARE,
  ASSOC_MIN_JOINT,
  ASSOC_MIN_NPMI,
  ASSOC_WORD,
  normalizedPmi,
} from './sqlite/bridge-assoc.js';
export { REBUILD_HINT } from './sqlite/corruption.js';
export { openHistoryFile } from './sqlite/history-store.js';
export { removeIndexFileSet, replaceIndexFile } from './sqlite/replace-file.js';
export {
  BM25_WEIGHTS,
  COMMON_TERM_RATIO,
  HNSW_DEFAULTS,
  type HnswOptions,
  hnswPaths,
  type IntegrityReport,
  KEYWORD_POSTINGS_BUDGET,
  MAX_KEYWORD_TERMS,
  type OpenSqliteIndexOptions,
  openSqliteIndex,
  SCHEMA_VERSION,
  type SqliteLocalIndex,
  type TermPlan,
  type VectorIndexState,
} from './sqlite-index.js';
