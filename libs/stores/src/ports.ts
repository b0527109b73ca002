/**
 * Store ports. The local SQLite index and the cluster adapters
 * (Elasticsearch for BM25, Qdrant for vectors) implement these, so every
 * method is async and speaks plain data: no SQL, no client objects.
 *
 * Shared rules every implementation follows (the contract suite checks them):
 * - `upsert` is idempotent by `id`: writing the same id again replaces it.
 * - A write is visible to `search`/`count` once its promise resolves.
 * - Results are ordered best first; `score` is higher-is-better.
 * - Path filters are plain string prefixes of the POSIX path relative to
 *   the root (`src/` matches `src/a.ts`, `src` also matches `srcx/b.ts`).
 */
import type { Chunk, FileRecord, SymbolInfo } from '@codesift/core';

/** What the keyword index needs of a chunk. Text is raw; the index analyzes it. */
export interface KeywordDoc {
  id: string;
  path: string;
  language: string;
  startLine: number;
  endLine: number;
  symbol: string | null;
  kind: string;
  content: string;
  context: string;
  signature?: string;
}

export interface SearchFilter {
  /** Keep only these languages (empty or absent: all). */
  languages?: string[];
  /** Keep only paths starting with one of these (empty or absent: all). */
  pathPrefixes?: string[];
  /** Drop paths starting with any of these. */
  excludePathPrefixes?: string[];
}

export interface KeywordTerm {
  /** One analyzer term (see @codesift/analysis `analyze`). */
  term: string;
  /** Multiplies the term's BM25 contribution; default 1. Terms with boost <= 0 are ignored. */
  boost?: number;
}

export interface KeywordQuery {
  /** OR semantics: a doc matches if it contains any term. */
  terms: KeywordTerm[];
  limit: number;
  filter?: SearchFilter;
}

export interface KeywordHit {
  id: string;
  path: string;
  startLine: number;
  endLine: number;
  symbol: string | null;
  kind: string;
  language: string;
  /** BM25 score, higher is better; comparable only within one result list. */
  score: number;
}

export interface CooccurrenceQuery {
  /** Analyzer terms of the query's words. */
  words: string[];
  /** Analyzer terms of candidate identifiers (a whole identifier is one term). */
  terms: string[];
  /** A word or term in more than this share (0..1) of the chunks is counted, its co-occurrences are not read. */
  maxShare: number;
}

/** Chunk counts for the offline vocabulary bridge: words and identifiers found together. */
export interface Cooccurrence {
  /** Chunks in the index. */
  chunks: number;
  /** Chunks holding each word and term asked (0: none). */
  df: Record<string, number>;
  /**
   * joint[term][word]: chunks holding both, for each term whose postings
   * were read (absent: not read); a word with no shared chunk is absent.
   */
  joint: Record<string, Record<string, number>>;
}

export interface KeywordIndex {
  upsert(docs: KeywordDoc[]): Promise<void>;
  deleteByPaths(paths: string[]): Promise<void>;
  search(q: KeywordQuery): Promise<KeywordHit[]>;
  count(): Promise<number>;
  /**
   * How often the words and the identifier terms occur in the same chunks.
   * Optional: the local index counts them from its postings; the cluster's
   * Elasticsearch adapter does not (yet), and the bridge is skipped there.
   */
  cooccurrence?(q: CooccurrenceQuery): Promise<Cooccurrence>;
}

export interface VectorRecord {
  id: string;
  path: string;
  language: string;
  vector: Float32Array;
}

export interface VectorQuery {
  vector: Float32Array;
  limit: number;
  filter?: SearchFilter;
}

export interface VectorHit {
  id: string;
  path: string;
  /** Cosine similarity, higher is better (1 = same direction). */
  score: number;
}

export interface VectorIndex {
  /** Rejects with CodesiftError('INVALID_ARGUMENT') when a vector has the wrong dimension. */
  upsert(v: VectorRecord[]): Promise<void>;
  deleteByPaths(paths: string[]): Promise<void>;
  search(q: VectorQuery): Promise<VectorHit[]>;
  count(): Promise<number>;
}

export interface SymbolLookupOptions {
  /** Most results; default 50. */
  limit?: number;
  /** Keep only this kind (`function`, `class`, ...). */
  kind?: string;
}

export interface VocabularyOptions {
  /** Most names; default 1000. */
  limit?: number;
  /** Case-insensitive name prefix. */
  prefix?: string;
}

export interface SymbolIndex {
  upsert(s: SymbolInfo[]): Promise<void>;
  deleteByPaths(paths: string[]): Promise<void>;
  /**
   * Symbols whose name or qualified name equals `name` (case-insensitive),
   * qualified-name matches first; then those whose name or qualified name
   * starts with it, shortest name first.
   */
  lookup(name: string, opts?: SymbolLookupOptions): Promise<SymbolInfo[]>;
  /**
   * The symbols defined in the file at `path`, in source order. Optional:
   * the local index has it; the cluster's symbol service does not (yet).
   */
  inFile?(path: string): Promise<SymbolInfo[]>;
  /** inFile for several files at once (optional; the SQLite store has it): path → its symbols. */
  inFiles?(paths: readonly string[]): Promise<Map<string, SymbolInfo[]>>;
  /** Distinct symbol names with how many symbols carry each, most frequent first. */
  vocabulary(opts?: VocabularyOptions): Promise<{ name: string; count: number }[]>;
  /**
   * Symbols whose name or doc comment contains one of `words` (lowercase
   * stems), best first: more words in the name, then in the doc, then the
   * shorter name; one symbol per name. Optional: a store without it leaves
   * the caller to fall back on lookup (the SQLite store and the cluster's
   * symbol service have it).
   */
  related?(words: readonly string[], opts?: { limit?: number }): Promise<SymbolInfo[]>;
  count(): Promise<number>;
}

export interface Manifest {
  get(path: string): Promise<FileRecord | undefined>;
  /** get() for several paths at once (optional: the SQLite store has it); a path not indexed is absent. */
  getMany?(paths: readonly string[]): Promise<Map<string, FileRecord>>;
  /**
   * Every record, or with `prefix` those whose path starts with it (one
   * repository of an index of many: `acme/api/`), read by range, not by
   * filtering the whole manifest.
   */
  all(prefix?: string): Promise<Map<string, FileRecord>>;
  /**
   * Every indexed path, sorted (optional: the SQLite store has it); what
   * all() gives, without the records. With `containing`, only the paths
   * holding one of these substrings (ASCII case-insensitive), found without
   * building every path in memory: what a search reads at its start.
   */
  paths?(containing?: readonly string[]): Promise<string[]>;
  /** Inserts or replaces records by path. */
  put(records: FileRecord[]): Promise<void>;
  /** Removes the records only; use LocalIndex.removeFiles to drop derived data too. */
  remove(paths: string[]): Promise<void>;
}

/**
 * The text of each indexed file as the index holds it (secrets already
 * redacted by the scanner), kept beside the chunks where the reader has no
 * checkout: the cluster's query service serves get_snippet from it. Written
 * by commitFiles when a commit carries `text`, dropped with the file.
 */
export interface FileTextStore {
  /** The stored text of `path`, or undefined when the index keeps none for it. */
  get(path: string): Promise<string | undefined>;
  /** Which of `paths` have a stored text, without reading them (optional: the SQLite store has it). */
  stored?(paths: readonly string[]): Promise<Set<string>>;
}

export interface ChunkStore {
  /** Full chunks (content, context, signature, doc) in the order asked; unknown ids are skipped. */
  get(ids: string[]): Promise<Chunk[]>;
}

/** One commit of the repository's history, as the indexer reads it (git log). */
export interface HistoryCommit {
  sha: string;
  /** Commit time, epoch seconds. */
  time: number;
  /** Subject and body. */
  message: string;
  /** Changed paths, relative to the index root. */
  paths: string[];
}

/** A commit whose message matches a query, with the changed files the index still holds. */
export interface HistoryMatch {
  sha: string;
  time: number;
  /** BM25 of the message against the query's terms; higher is better. */
  score: number;
  /** Each changed file the index holds, with how many of the stored commits changed it. */
  files: { path: string; commits: number }[];
  /** How many commits are stored (the base of each file's share of them). */
  stored: number;
}

/**
 * The repository's change history (the SQLite store keeps it; an index
 * without one answers nothing). Written by the indexer, read by the search
 * engine's history prior.
 */
export interface HistoryIndex {
  /** The best `limit` commits whose messages hold any of `terms` (analyzer terms), best first. */
  similar(terms: readonly string[], limit: number): Promise<HistoryMatch[]>;
  /** The commit the history was read at; null when none is stored. */
  head(): Promise<string | null>;
  /** Replaces the stored history with `commits`, read at `head`. */
  replace(commits: readonly HistoryCommit[], head: string): Promise<void>;
}
