import type { ContextSummary } from '@codesift/context';
import type { SkipReason } from '@codesift/core';

export type IndexPhase = 'open' | 'scan' | 'plan' | 'index' | 'finish' | 'done';

/** A snapshot of a running index job, emitted often; consumers throttle display. */
export interface IndexProgress {
  phase: IndexPhase;
  /** Files found by the scanner that will be indexed. */
  filesScanned: number;
  /** Files whose size or mtime changed (or are new) and must be read. */
  filesToProcess: number;
  /** Files of `filesToProcess` handled so far (written, unchanged or skipped). */
  filesProcessed: number;
  chunks: number;
  /** Chunks per second over the index phase so far. */
  chunksPerSecond: number;
  /** Seconds left in the index phase, estimated from the file rate; null until known. */
  etaSeconds: number | null;
  elapsedSeconds: number;
}

/** What `codesift index --json` prints. */
export interface IndexSummary {
  root: string;
  /** Commits of the repository's history stored this run (git-history.ts); absent when it was current or there is none. */
  historyCommits?: number;
  indexPath: string;
  embedder: string | null;
  /** Files the scanner accepted. */
  filesScanned: number;
  /** Files (re)written to the index this run: new + changed. */
  filesIndexed: number;
  filesNew: number;
  filesChanged: number;
  /** Files whose content was identical (only their stat changed, or nothing at all). */
  filesUnchanged: number;
  filesDeleted: number;
  /** Files that could not be processed (read or chunk errors), with reasons in `failures`. */
  filesFailed: number;
  skipped: Partial<Record<SkipReason, number>>;
  /**
   * Some of the skipped paths by reason (local runs): up to
   * SKIPPED_PATHS_PER_REASON each, sorted; plain 'ignored' ones are not
   * listed. The counts are in `skipped`.
   */
  skippedPaths?: Partial<Record<SkipReason, string[]>>;
  /**
   * Files written this run that got line windows (chunk kind 'window', no
   * symbols) although their language should have AST chunks, by language:
   * how many, why (the grammar failed to load, or no usable grammar exists)
   * and up to SKIPPED_PATHS_PER_REASON of their paths. Cluster runs count
   * them from the writer's job events (the chunker's notes).
   */
  noAst?: Record<string, LanguageFiles>;
  /**
   * Files written this run whose language has no grammar and whose chunks and
   * symbols came from the brace recognizer (declarations by keyword, bodies
   * by brace matching, no syntax tree), by language: how many, what was done
   * and why, and up to SKIPPED_PATHS_PER_REASON of their paths. Local and
   * cluster runs alike.
   */
  structural?: Record<string, LanguageFiles>;
  /**
   * Secrets replaced by a `[REDACTED:<rule>]` marker in the files written this
   * run, by rule id (`aws-access-key`, `private-key`, ...); never the secrets.
   */
  secretsRedacted: Record<string, number>;
  chunks: number;
  symbols: number;
  vectors: number;
  /** Totals in the index after the run. */
  totals: { files: number; chunks: number; symbols: number; vectors: number };
  seconds: number;
  chunksPerSecond: number;
  failures: { path: string; reason: string }[];
  /**
   * How this run's chunk contexts came about (local runs): pattern or LLM
   * mode, the model and whether it answered, chunks by source, fallbacks by
   * reason. Only the chunks (re)written this run are counted.
   */
  context?: ContextSummary;
  /**
   * Cluster runs (`--remote`): the chunks this job wrote by context source
   * and fallback reason, as the writer reported them. The model and its calls
   * are the contextualizer replicas' own (their logs), so only these counts
   * exist here.
   */
  contextSources?: Pick<ContextSummary, 'sources' | 'fallbacks'>;
}

/** One language's files in a run's noAst or structural count. */
export interface LanguageFiles {
  files: number;
  reason: string;
  paths: string[];
}
