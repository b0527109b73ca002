// The policy an indexing run takes (IndexOptions.secrets), for its callers.

// The index location constants live in core (read-only commands need them without this package).
export { DEFAULT_INDEX_DIR, INDEX_FILE } from '@codesift/core';
export { isSecretPolicy, SECRET_POLICIES, type SecretPolicy } from '@codesift/scanner';
export { EmbedBatcher, type EmbedFn } from './batcher.js';
export {
  HISTORY_MAX_COMMITS,
  type HistorySource,
  historyHead,
  parseGitLog,
  readHistory,
  refreshHistory,
} from './git-history.js';
export {
  acquireIndexLock,
  describeHolder,
  type IndexLock,
  type LockHolder,
  lockFileOf,
} from './index-lock.js';
export {
  type IndexWatcher,
  type IndexWatchOptions,
  MAX_LISTED_PATHS,
  MAX_NARROWED_PATHS,
  type WatchBatch,
  type WatchChange,
  watchIndex,
} from './index-watcher.js';
export {
  createLocalIndexJobs,
  type IndexJobState,
  type IndexJobStatus,
  type IndexJobs,
  type LocalIndexJobs,
  type LocalIndexJobsOptions,
  type StartIndexJobRequest,
} from './jobs.js';
export {
  defaultIndexPath,
  type IndexOptions,
  indexRepository,
  rebuildPathOf,
} from './local-runner.js';
export { type IndexPlan, planIndex } from './plan.js';
export type { IndexPhase, IndexProgress, IndexSummary } from './progress.js';
export { FilesByLanguage, SKIPPED_PATHS_PER_REASON } from './skipped-paths.js';
export { WARM_SAMPLE_MAX_BYTES, warmChunker, warmSamples } from './warm-chunker.js';
