export {
  type ClusterIndexJobs,
  type ClusterIndexJobsOptions,
  type ClusterJobStatus,
  createClusterIndexJobs,
} from './cluster-index-jobs.js';
export {
  fetchIndexStats,
  type IndexStatsSource,
  type RemoteIndexStats,
  serveIndexStats,
} from './index-stats.js';
export {
  applyJobEvent,
  isJobComplete,
  type JobProgress,
  newJobProgress,
  type WatchJobOptions,
  watchJob,
} from './job-progress.js';
export {
  DEFAULT_MANIFEST_PAGE,
  type FetchManifestOptions,
  fetchManifest,
  MAX_MANIFEST_PAGE,
  type ManifestServiceOptions,
  type ManifestSource,
  serveManifest,
} from './manifest-service.js';
export {
  type ManifestInput,
  type SubmitOptions,
  type SubmittedJob,
  submitIndexJob,
} from './submit-index-job.js';
export { NatsSymbolIndex, type NatsSymbolIndexOptions } from './symbol-client.js';
export {
  lazySymbolReader,
  type SymbolReader,
  type SymbolService,
  serveSymbolIndex,
} from './symbol-service.js';
