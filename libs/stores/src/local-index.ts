import type { Chunk, FileRecord, SymbolInfo } from '@codesift/core';
import type {
  ChunkStore,
  FileTextStore,
  HistoryIndex,
  KeywordIndex,
  Manifest,
  SymbolIndex,
  VectorIndex,
} from './ports.js';

/** Everything derived from one file, written together by `commitFiles`. */
export interface FileCommit {
  record: FileRecord;
  chunks: Chunk[];
  /** One vector per chunk, same order; null when vectors are off for this index. */
  vectors: Float32Array[] | null;
  symbols: SymbolInfo[];
  /**
   * The file's text, for a store that keeps it (the cluster's writer sends
   * it, so the query service needs no checkout); absent: none is kept, and
   * any text stored for the path before is dropped.
   */
  text?: string;
}

export interface IndexMeta {
  schemaVersion: number;
  /** Analyzer version the keyword index was built with (see @codesift/analysis ANALYZER_VERSION). */
  analyzerVersion: number;
  embedder: string | null;
  dimensions: number | null;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms of the last write. */
  updatedAt: number;
  /** Absolute path of the indexed directory, recorded by the indexer; paths are relative to it. */
  root: string | null;
  /**
   * An index of many repositories (a cluster's): name -> the directory it
   * was scanned from, its paths stored under `<name>/` (see @codesift/core
   * repositories); empty for an index of one tree.
   */
  repositories: Record<string, string>;
}

export interface IndexStats {
  files: number;
  chunks: number;
  symbols: number;
  vectors: number;
  /** Size of the database including its write-ahead log. */
  bytes: number;
}

/** The single-machine index: all ports over one store, plus atomic per-file writes. */
export interface LocalIndex {
  readonly keyword: KeywordIndex;
  readonly vectors: VectorIndex;
  readonly symbols: SymbolIndex;
  readonly manifest: Manifest;
  readonly chunks: ChunkStore;
  /** File texts committed with `text` (empty for a local index: it reads the checkout). */
  readonly fileTexts?: FileTextStore;
  /** The repository's change history, where the store keeps one (the SQLite store does). */
  readonly history?: HistoryIndex;
  meta(): IndexMeta;
  /**
   * Atomically replaces everything stored for each file (old chunks,
   * vectors, symbols deleted; new ones written; manifest updated) in one
   * transaction for the whole batch, so a crash leaves each file either
   * fully old or fully new. Throws (and writes nothing) on invalid input,
   * e.g. a vector of the wrong dimension.
   */
  commitFiles(batch: FileCommit[]): void;
  /** Atomically removes files and everything derived from them. */
  removeFiles(paths: string[]): void;
  /**
   * Records the embedder. The first call on an empty index creates the
   * vector table; a different embedder (or dimension) on an index that
   * already holds files throws CodesiftError('INDEX_INCOMPATIBLE').
   */
  setEmbedder(name: string | null, dimensions: number | null): void;
  /**
   * Records the absolute root directory the index's paths are relative to,
   * or with `repository`, that repository's directory. Throws
   * INVALID_ARGUMENT when the job does not fit the index (core placeRoot).
   */
  setRoot(root: string, repository?: string): void;
  stats(): IndexStats;
  close(): void;
}
