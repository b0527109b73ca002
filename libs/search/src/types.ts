import type { SymbolInfo } from '@codesift/core';
import type { SynonymMergeMode, SynonymTable } from '@codesift/query';
import type { PlannerSwitches } from './planning/switches.js';
import type {
  FusionMode,
  QueryPlan,
  RewriteMode,
  VariantKind,
  VariantMerge,
} from './planning/types.js';

/** Restricts a search. Globs are picomatch patterns over paths relative to the indexed root. */
export interface SearchFilter {
  languages?: string[];
  include?: string[];
  exclude?: string[];
  /** Languages to drop (the query's `-lang:`). */
  excludeLanguages?: string[];
}

/** How fused scores are combined. A request may also ask for 'adaptive' (see FusionMode). */
export type FusionMethod = 'rrf' | 'linear';

/** One search. The planner's switches (expansion, anchors, ...: see PlannerSwitches) are options too. */
export interface SearchRequest extends Partial<PlannerSwitches> {
  query: string;
  /** Results wanted; default 10, at most 100. */
  limit?: number;
  filter?: SearchFilter;
  /**
   * Default: the engine's configured method ('linear'). 'adaptive' is linear
   * fusion with the vector weight derived from the query's specificity.
   */
  fusion?: FusionMode;
  /** Weight of the vector side in linear fusion, 0..1; default 0.7. Adaptive fusion ignores it. */
  vectorWeight?: number;
  /** RRF constant; default 60. */
  rrfK?: number;
  /** One result per file (its best chunk); default false. */
  collapseFiles?: boolean;
  /** Attach per-result score parts. */
  explain?: boolean;
  /**
   * Attach the query plan to the response; default true. A server that will
   * not send it passes false: the plan is the largest part of a response, and
   * a search on a worker thread copies its response across threads.
   */
  includePlan?: boolean;
  /** Skip the vector side entirely. */
  keywordOnly?: boolean;
  signal?: AbortSignal;
  /** Milliseconds the whole search may take; a side that misses it is dropped and reported in `degraded`. */
  deadlineMs?: number;
  /** Whether the query asks about the implementation or its tests; default: inferred from the query. */
  focus?: 'implementation' | 'tests' | 'all';
  /** With collapseFiles: a file's score from its best chunk ('best'), best plus decayed next chunks ('decayed'), or decayed for long queries only ('auto'). */
  fileScore?: 'best' | 'decayed' | 'auto';
  /**
   * false: every planner feature off (no expansion, anchors, definition
   * boost, focus, rewrite; linear fusion; files by best chunk). Options set
   * explicitly in the same request still apply.
   */
  planning?: boolean;
  /** Synonyms merged over the engine's table (default and repository config) for this request. */
  synonyms?: SynonymTable;
  /** 'extend' (default) appends to a word's synonyms, 'replace' replaces them. */
  synonymsMode?: SynonymMergeMode;
  /**
   * The LLM query rewrite (needs a configured model): 'auto' (default) for
   * natural-language questions, 'on' for short keyword queries too, 'off'
   * never. See planning/rewrite-decision.ts.
   */
  rewrite?: RewriteMode;
  /**
   * Search the query as up to this many views of itself (the query included),
   * in parallel, merged per chunk (planning/variants.ts); 0 or 1: off. Unset:
   * the engine's default, 3 views of a long pasted report (its summary and
   * the code it names). Set: every kind allowed unless `variantKinds` says.
   */
  variants?: number;
  /** The variant kinds allowed; unset with `variants` set: all of them. */
  variantKinds?: VariantKind[];
  /** How variants merge per chunk: 'rrf' (default) or 'max'. */
  variantMerge?: VariantMerge;
  /** Embed the views in words (a report's summary, the model's phrasings) too, in one batch; default false. */
  variantVectors?: boolean;
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
  /** The score from fusion alone, before boosts and focus. */
  base?: number;
  /** Part of `fused` added because the chunk holds the query's anchors verbatim; absent when none. */
  anchorBoost?: number;
  /** The anchors found in the chunk. */
  anchors?: string[];
  /** What the score was multiplied by for focus: 1 in focus, the plan's multiplier out of it. */
  focusMultiplier?: number;
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
  /**
   * True when the file changed on disk (or is gone) since it was indexed:
   * the lines and snippet are the indexed version's and may have moved.
   * Absent when fresh, and from engines that do not check (a cluster's).
   */
  stale?: boolean;
  explain?: ScoreExplain;
}

export interface SearchResponse {
  query: string;
  results: SearchResult[];
  /**
   * The combiner used. The local engine reports 'linear' for adaptive fusion
   * (it is linear fusion with computed weights; plan.fusion.method says
   * 'adaptive'); the type admits 'adaptive' so that other engines may say so.
   */
  fusion: FusionMode;
  /**
   * Milliseconds per stage that ran: parse, plan, keyword, embed, vector,
   * fuse, boosts (definitions, anchors, focus, collapse), hydrate, total.
   */
  timings: Record<string, number>;
  /** Backends that failed or missed the deadline (e.g. 'vector: timeout'); the answer was built without them. */
  degraded: string[];
  totalChunks: number;
  /** Every decision taken for this query (see QueryPlan); plain JSON-serialisable data. */
  plan?: QueryPlan;
}

export interface IndexStatusInfo {
  root: string | null;
  /** In an index of many repositories (a cluster's), their names, sorted: every path starts with one. */
  repositories: string[];
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
  /** The lines as they are on disk, redacted as indexing redacts them; empty when stale. */
  text: string;
  /**
   * True when the file's content is no longer what the index holds (edited,
   * or replaced): no text is served until it is re-indexed.
   */
  stale?: boolean;
}

/**
 * What every surface (CLI, gRPC, MCP, eval) searches through. The local
 * engine implements it over SQLite; the cluster query service will implement
 * it over Elasticsearch and Qdrant.
 */
export interface SearchEngine {
  search(request: SearchRequest): Promise<SearchResponse>;
  lookupSymbol(name: string, options?: { kind?: string; limit?: number }): Promise<SymbolInfo[]>;
  /**
   * The symbols defined in one indexed file (path relative to the root), in
   * source order; empty for a file with none or not in the index. Optional:
   * engines over stores that cannot list them (remote, cluster) leave it out.
   */
  fileSymbols?(path: string): Promise<SymbolInfo[]>;
  /**
   * Symbol names with how many symbols carry each: most frequent first, or
   * with `terms` the names relevant to those words (their name parts or doc
   * comments match), most relevant first: the slice the LLM rewrite sends.
   */
  vocabulary(options?: {
    prefix?: string;
    limit?: number;
    terms?: string[];
  }): Promise<{ name: string; count: number }[]>;
  status(): Promise<IndexStatusInfo>;
  /** Reads lines of an indexed file from disk; refuses paths outside the root (PATH_OUTSIDE_ROOT). */
  getSnippet(path: string, startLine: number, endLine: number): Promise<Snippet>;
  close(): Promise<void>;
}
