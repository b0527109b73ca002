// Protobuf payloads per work queue: encoding, decoding with validation, and
// the message id JetStream uses to drop duplicate publishes. Every work
// message is a batch: one job's id and one or more files.
import { createHash } from 'node:crypto';
import {
  create,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from '@bufbuild/protobuf';
import { WORK_QUEUES, type WorkQueue } from './subjects.js';

/** The batch a work queue carries. */
export type WorkMessage<Q extends WorkQueue> = MessageShape<(typeof WORK_QUEUES)[Q]['schema']>;
/** A message or a plain object initialiser for it (as `create` takes). */
export type WorkMessageInit<Q extends WorkQueue> = MessageInitShape<
  (typeof WORK_QUEUES)[Q]['schema']
>;
/** One file of a queue's batch. */
export type WorkFile<Q extends WorkQueue> = MessageShape<(typeof WORK_QUEUES)[Q]['fileSchema']>;
export type WorkFileInit<Q extends WorkQueue> = MessageInitShape<
  (typeof WORK_QUEUES)[Q]['fileSchema']
>;

/** What every batch has, whatever its queue. */
export interface AnyBatch {
  jobId: string;
  files: { path: string; hash?: string }[];
}

/** A payload that can never be processed; it goes to dead-letter, not back to the queue. */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

/** Builds the message for `queue` from an initialiser (a built message passes through). */
export function createWork<Q extends WorkQueue>(
  queue: Q,
  init: WorkMessageInit<Q>,
): WorkMessage<Q> {
  // The generic schema type does not narrow to Q's message type, hence the casts.
  return create(WORK_QUEUES[queue].schema, init as never) as WorkMessage<Q>;
}

/** Builds one file of `queue`'s batch (a built message passes through). */
export function createWorkFile<Q extends WorkQueue>(queue: Q, init: WorkFileInit<Q>): WorkFile<Q> {
  return create(WORK_QUEUES[queue].fileSchema, init as never) as WorkFile<Q>;
}

// The last encoding of each batch message. A stage measures a batch (to
// keep it under the payload limit) and then publishes it; the publisher
// encodes again, and this makes the second encoding free. Work messages are
// treated as immutable once encoded: build a new one rather than edit it.
const encoded = new WeakMap<object, Uint8Array>();

export function encodeWork<Q extends WorkQueue>(queue: Q, message: WorkMessage<Q>): Uint8Array {
  const cached = encoded.get(message);
  if (cached) return cached;
  const bytes = toBinary(WORK_QUEUES[queue].schema, message as never);
  encoded.set(message, bytes);
  return bytes;
}

/** Encoded size of one file as it sits inside a batch (the message plus its field framing). */
export function encodedFileSize<Q extends WorkQueue>(queue: Q, file: WorkFile<Q>): number {
  const n = toBinary(WORK_QUEUES[queue].fileSchema, file as never).length;
  // One tag byte and a varint length prefix (at most 5 bytes).
  return n + 1 + varintSize(n);
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

export function decodeWork<Q extends WorkQueue>(queue: Q, data: Uint8Array): WorkMessage<Q> {
  let message: AnyBatch;
  try {
    message = fromBinary(WORK_QUEUES[queue].schema, data) as unknown as AnyBatch;
  } catch (err) {
    throw new DecodeError(`decode: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Protobuf decodes almost any bytes into some message; a message without
  // the fields every stage keys on is as unprocessable as garbage.
  if (!message.jobId) throw new DecodeError('decode: missing job_id');
  if (message.files.length === 0) throw new DecodeError('decode: batch without files');
  if (message.files.some((f) => !f.path)) throw new DecodeError('decode: file without path');
  return message as unknown as WorkMessage<Q>;
}

/** The paths of a batch's files, in order. */
export function batchPaths(message: AnyBatch): string[] {
  return message.files.map((f) => f.path);
}

/**
 * The JetStream message id: the same (job, files, contents) published twice
 * within the stream's duplicate window, e.g. by a producer redelivered after
 * publishing but before acking, is stored once. Stages split batches
 * deterministically, so a redelivered batch yields the same ids again.
 */
export function workMessageId<Q extends WorkQueue>(queue: Q, message: WorkMessage<Q>): string {
  const batch = message as unknown as AnyBatch;
  const h = createHash('sha256').update(queue);
  for (const f of batch.files)
    h.update('\0')
      .update(f.path)
      .update('\0')
      .update(f.hash ?? '');
  return `${batch.jobId}:${batch.files.length}:${h.digest('base64url').slice(0, 22)}`;
}
