export type { KV } from '@nats-io/kv';
export { describeNatsAuth, type NatsAuth, natsAuthFromEnv } from './auth.js';
export {
  type BatchLimits,
  BatchPacker,
  DEFAULT_BATCH_LIMITS,
  type FittedBatches,
  fitBatches,
  messageByteLimit,
  NATS_DEFAULT_MAX_PAYLOAD,
  packBatches,
  singleFileBatch,
} from './batch.js';
export { BUCKETS, type BucketDef, type BucketName, openBucket } from './buckets.js';
export {
  type AnyBatch,
  batchPaths,
  createWork,
  createWorkFile,
  DecodeError,
  decodeWork,
  encodedFileSize,
  encodeWork,
  type WorkFile,
  type WorkFileInit,
  type WorkMessage,
  type WorkMessageInit,
  workMessageId,
} from './codec.js';
export {
  type ConsumeOptions,
  type ConsumeStats,
  type Consumption,
  consume,
  type Handler,
  type HandlerContext,
} from './consumer.js';
export {
  type DeadLetterInput,
  publishDeadLetter,
  readDeadLetters,
  type StoredDeadLetter,
} from './dead-letter.js';
export { type FollowOptions, followSubject } from './follow.js';
export { HEADER } from './headers.js';
export {
  announceJob,
  latestJobId,
  type PublishOptions,
  publish,
  publishJobEvent,
} from './publisher.js';
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  ERROR_HEADER,
  ERROR_HINT_HEADER,
  type RequestOptions,
  type Responder,
  requestService,
  SERVICE_NAMES,
  SERVICES,
  type ServeOptions,
  type ServiceDef,
  type ServiceHandler,
  type ServiceName,
  type ServiceRequest,
  type ServiceRequestInit,
  type ServiceResponse,
  type ServiceResponseInit,
  serveRequests,
} from './services.js';
export {
  type ConsumerPolicy,
  consumerConfig,
  DEFAULT_POLICIES,
  ensureStreams,
  policyFor,
  streamConfigs,
  TopologyError,
  type TopologyOptions,
} from './streams.js';
export {
  DEAD_LETTER,
  deadLetterSubject,
  EVENTS,
  JOBS_STARTED_SUBJECT,
  jobEventsSubject,
  SUBJECT_PREFIX,
  WORK_QUEUE_NAMES,
  WORK_QUEUES,
  type WorkQueue,
  type WorkQueueDef,
} from './subjects.js';
export {
  childTrace,
  formatTraceparent,
  fromSpanContext,
  newRootTrace,
  parseTraceparent,
  type TraceContext,
  toSpanContext,
} from './trace-context.js';
