// Protobuf payloads per work queue: encoding, decoding with validation, and
// the message id JetStream uses to drop duplicate publishes.
import {
  create,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from '@bufbuild/protobuf';
import { WORK_QUEUES, type WorkQueue } from './subjects.js';

export type WorkMessage<Q extends WorkQueue> = MessageShape<(typeof WORK_QUEUES)[Q]['schema']>;
/** A message or a plain object initialiser for it (as `create` takes). */
export type WorkMessageInit<Q extends WorkQueue> = MessageInitShape<
  (typeof WORK_QUEUES)[Q]['schema']
>;

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

export function encodeWork<Q extends WorkQueue>(queue: Q, message: WorkMessage<Q>): Uint8Array {
  return toBinary(WORK_QUEUES[queue].schema, message as never);
}

export function decodeWork<Q extends WorkQueue>(queue: Q, data: Uint8Array): WorkMessage<Q> {
  let message: { jobId: string; path: string };
  try {
    message = fromBinary(WORK_QUEUES[queue].schema, data) as { jobId: string; path: string };
  } catch (err) {
    throw new DecodeError(`decode: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Protobuf decodes almost any bytes into some message; a message without
  // the fields every stage keys on is as unprocessable as garbage.
  if (!message.jobId) throw new DecodeError('decode: missing job_id');
  if (!message.path) throw new DecodeError('decode: missing path');
  return message as WorkMessage<Q>;
}

/**
 * The JetStream message id: the same (job, file, content) published twice
 * within the stream's duplicate window, e.g. by a producer redelivered after
 * publishing but before acking, is stored once.
 */
export function workMessageId<Q extends WorkQueue>(queue: Q, message: WorkMessage<Q>): string {
  const m = message as { jobId: string; path: string; hash?: string };
  return `${m.jobId}:${m.path}:${m.hash ?? queue}`;
}
