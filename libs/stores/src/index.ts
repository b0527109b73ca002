export type { FileCommit, IndexMeta, IndexStats, LocalIndex } from './local-index.js';
export type {
  ChunkStore,
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
  BM25_WEIGHTS,
  defaultIndexPath,
  MAX_KEYWORD_TERMS,
  type OpenSqliteIndexOptions,
  openSqliteIndex,
  SCHEMA_VERSION,
} from './sqlite-index.js';
