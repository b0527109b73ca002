// Every NATS subject, stream and durable consumer of the cluster pipeline,
// defined once as data. Services, ensureStreams and the tests all read this
// table, so a subject name is never spelled twice.
import type { DescMessage } from '@bufbuild/protobuf';
import {
  FileChunksBatchSchema,
  FileChunksSchema,
  FileDeletedBatchSchema,
  FileDeletedSchema,
  FileWorkBatchSchema,
  FileWorkSchema,
  IndexJobRequestSchema,
  IndexJobRootSchema,
} from '@codesift/proto';

/** Prefix of every codesift subject, so one NATS account can host other traffic. */
export const SUBJECT_PREFIX = 'codesift';

export interface WorkQueueDef<
  S extends DescMessage = DescMessage,
  F extends DescMessage = DescMessage,
> {
  /** Subject the producing stage publishes to. */
  readonly subject: string;
  /** JetStream stream holding the subject (work-queue retention). */
  readonly stream: string;
  /**
   * Durable pull consumer shared by every replica of the consuming stage;
   * sharing one durable is what gives queue-group semantics.
   */
  readonly durable: string;
  readonly producer: string;
  /** The message on the wire: a batch of files of one job (`job_id`, `files`). */
  readonly schema: S;
  /** One file of a batch. */
  readonly fileSchema: F;
}

/**
 * One work-queue stream per subject rather than one stream with many
 * subjects: each stage's backlog, limits and purge are then independent, and
 * a work-queue stream allows only one consumer per subject anyway.
 */
export const WORK_QUEUES = {
  files: {
    subject: `${SUBJECT_PREFIX}.work.files`,
    stream: 'CODESIFT_WORK_FILES',
    durable: 'chunker',
    producer: 'scanner',
    schema: FileWorkBatchSchema,
    fileSchema: FileWorkSchema,
  },
  chunks: {
    subject: `${SUBJECT_PREFIX}.work.chunks`,
    stream: 'CODESIFT_WORK_CHUNKS',
    durable: 'contextualizer',
    producer: 'chunker',
    schema: FileChunksBatchSchema,
    fileSchema: FileChunksSchema,
  },
  symbols: {
    subject: `${SUBJECT_PREFIX}.work.symbols`,
    stream: 'CODESIFT_WORK_SYMBOLS',
    durable: 'symbols',
    producer: 'chunker',
    schema: FileChunksBatchSchema,
    fileSchema: FileChunksSchema,
  },
  contextualized: {
    subject: `${SUBJECT_PREFIX}.work.contextualized`,
    stream: 'CODESIFT_WORK_CONTEXTUALIZED',
    durable: 'embedder',
    producer: 'contextualizer',
    schema: FileChunksBatchSchema,
    fileSchema: FileChunksSchema,
  },
  embedded: {
    subject: `${SUBJECT_PREFIX}.work.embedded`,
    stream: 'CODESIFT_WORK_EMBEDDED',
    durable: 'writer',
    producer: 'embedder',
    schema: FileChunksBatchSchema,
    fileSchema: FileChunksSchema,
  },
  deletes: {
    subject: `${SUBJECT_PREFIX}.work.deletes`,
    stream: 'CODESIFT_WORK_DELETES',
    durable: 'writer-deletes',
    producer: 'scanner',
    schema: FileDeletedBatchSchema,
    fileSchema: FileDeletedSchema,
  },
  // Index-job requests (the query service's StartIndex, tools) -> the scanner
  // service, which scans the named directory on its own disk.
  jobs: {
    subject: `${SUBJECT_PREFIX}.work.jobs`,
    stream: 'CODESIFT_WORK_JOBS',
    durable: 'scanner',
    producer: 'client',
    schema: IndexJobRequestSchema,
    fileSchema: IndexJobRootSchema,
  },
} as const satisfies Record<string, WorkQueueDef>;

export type WorkQueue = keyof typeof WORK_QUEUES;
export const WORK_QUEUE_NAMES = Object.keys(WORK_QUEUES) as WorkQueue[];

/** Job progress: a limits stream, so a watcher that connects late can replay a job. */
export const EVENTS = {
  stream: 'CODESIFT_EVENTS',
  subjects: `${SUBJECT_PREFIX}.events.job.>`,
} as const;

/**
 * Every job's JOB_QUEUED event once more, on one subject of the events
 * stream (not a job id: ids are UUIDs), so the stream's last message there
 * names the newest job any replica started.
 */
export const JOBS_STARTED_SUBJECT = `${SUBJECT_PREFIX}.events.job.started`;

/** Poison messages, kept (limits retention) so an operator can inspect and replay them. */
export const DEAD_LETTER = {
  stream: 'CODESIFT_DEADLETTER',
  subjects: `${SUBJECT_PREFIX}.deadletter.>`,
} as const;

// Subject tokens may not contain '.', '*', '>' or whitespace; job ids and
// stage names become tokens, so reject anything else early and loudly.
const TOKEN = /^[A-Za-z0-9_-]+$/;

export function assertToken(kind: string, value: string): void {
  if (!TOKEN.test(value)) {
    throw new Error(`bus: ${kind} ${JSON.stringify(value)} is not a valid subject token`);
  }
}

export function jobEventsSubject(jobId: string): string {
  assertToken('job id', jobId);
  return `${SUBJECT_PREFIX}.events.job.${jobId}`;
}

export function deadLetterSubject(stage: string): string {
  assertToken('stage', stage);
  return `${SUBJECT_PREFIX}.deadletter.${stage}`;
}
