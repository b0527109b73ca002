/**
 * What the search engine reads, whatever stores hold the index: the local
 * SQLite file (one LocalIndex) or the cluster's Elasticsearch + Qdrant +
 * symbol service (@codesift/stores-cluster ClusterIndex). Only read
 * operations, and all async, because a remote store answers over the network.
 *
 * The engine owns the index it is given: `engine.close()` closes it.
 */
import type {
  ChunkStore,
  FileTextStore,
  HistoryIndex,
  IndexMeta,
  IndexStats,
  KeywordIndex,
  LocalIndex,
  Manifest,
  SymbolIndex,
  VectorIndex,
} from '@codesift/stores';

export interface SearchIndex {
  /** Where the index lives, for messages and `status().indexPath`: a file path or store URLs. */
  readonly location: string;
  readonly keyword: Pick<KeywordIndex, 'search' | 'cooccurrence'>;
  readonly vectors: Pick<VectorIndex, 'search'>;
  readonly symbols: Pick<SymbolIndex, 'lookup' | 'vocabulary' | 'inFile' | 'inFiles' | 'related'>;
  readonly chunks: ChunkStore;
  /**
   * `get`: getSnippet reads just the files the index holds; `all` (optional):
   * the repository's issue templates are found by path (repo-templates.ts).
   */
  readonly manifest: Pick<Manifest, 'get'> & Partial<Pick<Manifest, 'getMany' | 'all' | 'paths'>>;
  /** The files' texts where the stores keep them: getSnippet reads these before the disk. */
  readonly fileTexts?: FileTextStore;
  /** The repository's change history, where the stores keep one (the local index does). */
  readonly history?: Pick<HistoryIndex, 'similar'>;
  meta(): Promise<IndexMeta>;
  stats(): Promise<IndexStats>;
  close(): Promise<void>;
}

/**
 * A LocalIndex (the SQLite file) as a SearchIndex. The ports pass through
 * unchanged; meta/stats/close become async. `location` is the file path.
 */
export function localSearchIndex(index: LocalIndex, location: string): SearchIndex {
  return {
    location,
    keyword: index.keyword,
    vectors: index.vectors,
    symbols: index.symbols,
    chunks: index.chunks,
    manifest: index.manifest,
    ...(index.fileTexts ? { fileTexts: index.fileTexts } : {}),
    ...(index.history ? { history: index.history } : {}),
    meta: async () => index.meta(),
    stats: async () => index.stats(),
    close: async () => index.close(),
  };
}
