export {
  DEFAULT_NATS_URL,
  readServiceConfig,
  requireIndexPath,
  type ServiceConfig,
} from './config.js';
export { type ConnectOptions, connectWithRetry } from './connect.js';
export {
  type HealthReport,
  type HealthServer,
  type HealthTarget,
  LIVENESS_PATH,
  liveness,
  READINESS_PATH,
  readiness,
  startHealthServer,
} from './health.js';
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
  type StageContext,
  type StageDefinition,
  type StageHandler,
  type StageInstance,
  type StageRuntime,
} from './run-stage.js';
export type {
  DoneFile,
  FailedFile,
  StageOutput,
  StageResult,
} from './stage-result.js';
