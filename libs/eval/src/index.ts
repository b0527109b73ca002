export {
  BASELINE_WINDOW_LINES,
  type Bm25Hit,
  Bm25Index,
  type Bm25Params,
  type Bm25WindowHit,
  Bm25WindowIndex,
  buildBaselineIndex,
  DEFAULT_BM25,
  ENGLISH_STOP_WORDS,
  tokenize,
} from './baseline-bm25.js';
export {
  checkoutDir,
  commitInfo,
  type EnsureIndexResult,
  ensureCheckout,
  ensureIndex,
  GitDirs,
  indexDir,
  indexKey,
  llmContextKey,
} from './checkouts.js';
export {
  type ContextComparison,
  sumContextSummaries,
} from './context-comparison.js';
export {
  type AggregateCoverage,
  aggregateCoverage,
  COVERAGE_BUDGET_LINES,
  COVERAGE_HITS,
  type CoverageScores,
  type ReturnedRange,
  scoreCoverage,
} from './coverage.js';
export {
  buildGitHistorySet,
  type DropReason,
  formatGitHistorySet,
  type GitHistoryLine,
  type GitHistoryOptions,
  type GitHistorySet,
  parseHunks,
  repoNameFromMirror,
} from './git-history-set.js';
export {
  type AggregateChunkScores,
  type AggregateScores,
  aggregate,
  aggregateChunks,
  type ChunkScores,
  collapseToFiles,
  median,
  ndcgAt,
  percentile,
  type QueryScores,
  scoreChunkList,
  scoreQuery,
} from './metrics.js';
export {
  type EvalQuery,
  type LineRange,
  parseQuerySet,
  type QueryField,
  queryText,
  type RelevantLines,
  readQuerySet,
} from './query-set.js';
export { formatReport } from './report.js';
export {
  type CheckoutRecord,
  type ChunkAnswer,
  type EvalOptions,
  type EvalReport,
  type EvalSwitches,
  type EvalTarget,
  type GroupScores,
  type IndexRecord,
  orderForSeeding,
  type QueryResult,
  runEval,
  type SystemAnswer,
  TOP_K,
} from './runner.js';
