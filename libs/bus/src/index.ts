export {
  createWork,
  DecodeError,
  decodeWork,
  encodeWork,
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
export { HEADER } from './headers.js';
export { type PublishOptions, publish, publishJobEvent } from './publisher.js';
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
  newRootTrace,
  parseTraceparent,
  type TraceContext,
} from './trace-context.js';
