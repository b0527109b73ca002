export {
  type Bm25Hit,
  Bm25Index,
  type Bm25Params,
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
} from './checkouts.js';
export {
  type AggregateScores,
  aggregate,
  collapseToFiles,
  median,
  ndcgAt,
  percentile,
  type QueryScores,
  scoreQuery,
} from './metrics.js';
export {
  type EvalQuery,
  parseQuerySet,
  type QueryField,
  queryText,
  readQuerySet,
} from './query-set.js';
export { formatReport } from './report.js';
export {
  type CheckoutRecord,
  type EvalOptions,
  type EvalReport,
  type EvalSwitches,
  type EvalTarget,
  type GroupScores,
  orderForSeeding,
  type QueryResult,
  runEval,
  type SystemAnswer,
  TOP_K,
} from './runner.js';
