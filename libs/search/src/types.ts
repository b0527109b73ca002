import type { SymbolInfo } from '@codesift/core';

/** Restricts a search. Globs are picomatch patterns over paths relative to the indexed root. */
export interface SearchFilter {
  languages?: string[];
  include?: string[];
  exclude?: string[];
}

export type FusionMethod = 'rrf' | 'linear';

export interface SearchRequest {
  query: string;
  /** Results wanted; default 10, at most 100. */
  limit?: number;
  filter?: SearchFilter;
  /** Default: the engine's configured method ('linear'). */
  fusion?: FusionMethod;
  /** Weight of the vector side in linear fusion, 0..1; default 0.7. */
  vectorWeight?: number;
  /** RRF constant; default 60. */
  rrfK?: number;
  /** One result per file (its best chunk); default false. */
  collapseFiles?: boolean;
  /** Attach per-result score parts. */
  explain?: boolean;
  /** Skip the vector side entirely. */
  keywordOnly?: boolean;
  signal?: AbortSignal;
  /** Milliseconds the whole search may take; a side that misses it is dropped and reported in `degraded`. */
  deadlineMs?: number;
}

/** Where a result's score came from. Ranks are 1-based; null when that side did not return the chunk. */
export interface ScoreExplain {
  keyword: number | null;
  keywordRank: number | null;
  vector: number | null;
  vectorRank: number | null;
  /** The final score (the result's `score`), boosts included. */
  fused: number;
  /** Part of `fused` added because the chunk defines a symbol the query names; absent when none. */
  boost?: number;
}

export interface SearchResult {
  chunkId: string;
  /** Relative to the indexed root, POSIX separators. */
  path: string;
  startLine: number;
  endLine: number;
  symbol: string | null;
  kind: string;
  language: string;
  score: number;
  /** The chunk's most relevant lines (a few, not the whole chunk). */
  snippet: string;
  /** First line of `snippet` in the file. */
  snippetStartLine: number;
  explain?: ScoreExplain;
}

export interface SearchResponse {
  query: string;
  results: SearchResult[];
  fusion: FusionMethod;
  /** Milliseconds per stage: analyze, keyword, embed, vector, fuse, hydrate, total. */
  timings: Record<string, number>;
  /** Backends that failed or missed the deadline (e.g. 'vector: timeout'); the answer was built without them. */
  degraded: string[];
  totalChunks: number;
}

export interface IndexStatusInfo {
  root: string | null;
  indexPath: string;
  files: number;
  chunks: number;
  symbols: number;
  vectors: number;
  embedder: string | null;
  dimensions: number | null;
  /** Epoch ms of the last write. */
  updatedAt: number;
  bytes: number;
}

export interface Snippet {
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  text: string;
}

/**
 * What every surface (CLI, gRPC, MCP, eval) searches through. The local
 * engine implements it over SQLite; the cluster query service will implement
 * it over Elasticsearch and Qdrant.
 */
export interface SearchEngine {
  search(request: SearchRequest): Promise<SearchResponse>;
  lookupSymbol(name: string, options?: { kind?: string; limit?: number }): Promise<SymbolInfo[]>;
  vocabulary(options?: {
    prefix?: string;
    limit?: number;
  }): Promise<{ name: string; count: number }[]>;
  status(): Promise<IndexStatusInfo>;
  /** Reads lines of an indexed file from disk; refuses paths outside the root (PATH_OUTSIDE_ROOT). */
  getSnippet(path: string, startLine: number, endLine: number): Promise<Snippet>;
  close(): Promise<void>;
}
