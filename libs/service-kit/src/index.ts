export {
  type ClusterIndexJobs,
  type ClusterIndexJobsOptions,
  type ClusterJobStatus,
  createClusterIndexJobs,
} from './cluster-index-jobs.js';
export {
  DEFAULT_NATS_URL,
  readServiceConfig,
  requireIndexPath,
  type ServiceConfig,
} from './config.js';
export { type ConnectOptions, connectWithRetry } from './connect.js';
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
  createLogger,
  formatLogLine,
  type LogFields,
  type Logger,
  type LoggerOptions,
  type LogLevel,
} from './log.js';
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
  type RunningStage,
  type RunStageOptions,
  runStage,
  type StageBinding,
  type StageContext,
  type StageDefinition,
  type StageHandler,
  type StageInstance,
  type StageRuntime,
} from './run-stage.js';
export { NatsSymbolIndex, type NatsSymbolIndexOptions } from './symbol-client.js';
export {
  lazySymbolReader,
  type SymbolReader,
  type SymbolService,
  serveSymbolIndex,
} from './symbol-service.js';
