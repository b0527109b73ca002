export {
  DEFAULT_NATS_URL,
  readServiceConfig,
  requireIndexPath,
  type ServiceConfig,
} from './config.js';
export { type ConnectOptions, connectWithRetry } from './connect.js';
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
  type RunningStage,
  type RunStageOptions,
  runStage,
  type StageBinding,
  type StageDefinition,
  type StageInstance,
  type StageRuntime,
} from './run-stage.js';
