// The dead-letter subject: where a stage puts a message it gave up on,
// together with the reason, so the rest of the queue keeps flowing and an
// operator can see what failed and why.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { type DeadLetter, DeadLetterSchema } from '@codesift/proto';
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';
import { HEADER } from './headers.js';
import { DEAD_LETTER, deadLetterSubject } from './subjects.js';

export interface DeadLetterInput {
  /** Subject the message was consumed from. */
  subject: string;
  /** Stage (durable consumer) that gave up. */
  stage: string;
  reason: string;
  deliveries: number;
  payload: Uint8Array;
  /** Headers of the original message; trace and job headers are kept. */
  headers?: MsgHdrs | undefined;
  /**
   * JetStream message id, so the same letter stored twice within the
   * duplicate window (a batch redelivered after one of its files was
   * dead-lettered) is kept once.
   */
  msgId?: string;
}

/** Stores a dead letter; resolves once JetStream has it, so the original can be terminated. */
export async function publishDeadLetter(
  js: JetStreamClient,
  input: DeadLetterInput,
): Promise<PubAck> {
  const h = natsHeaders();
  for (const key of [HEADER.traceparent, HEADER.tracestate, HEADER.job]) {
    const v = input.headers?.get(key);
    if (v) h.set(key, v);
  }
  const letter = create(DeadLetterSchema, {
    subject: input.subject,
    stage: input.stage,
    reason: input.reason,
    deliveries: input.deliveries,
    payload: input.payload,
  });
  return js.publish(deadLetterSubject(input.stage), toBinary(DeadLetterSchema, letter), {
    headers: h,
    ...(input.msgId ? { msgID: input.msgId } : {}),
  });
}

export interface StoredDeadLetter {
  letter: DeadLetter;
  /** Sequence in the dead-letter stream. */
  seq: number;
  headers: Record<string, string>;
}

/**
 * Reads stored dead letters (oldest first) without consuming them: for
 * operators, replay tooling and tests.
 */
export async function readDeadLetters(
  js: JetStreamClient,
  opts: { stage?: string; max?: number; expiresMs?: number } = {},
): Promise<StoredDeadLetter[]> {
  const consumer = await js.consumers.get(DEAD_LETTER.stream, {
    filter_subjects: opts.stage ? deadLetterSubject(opts.stage) : DEAD_LETTER.subjects,
  });
  const info = await consumer.info(true);
  const available = info.num_pending;
  const max = Math.min(opts.max ?? 1000, available);
  const out: StoredDeadLetter[] = [];
  if (max > 0) {
    const iter = await consumer.fetch({ max_messages: max, expires: opts.expiresMs ?? 2000 });
    for await (const m of iter) {
      const headers: Record<string, string> = {};
      for (const [k, v] of m.headers ?? []) headers[k] = v.join(', ');
      out.push({ letter: fromBinary(DeadLetterSchema, m.data), seq: m.seq, headers });
      if (out.length >= max) break;
    }
  }
  await consumer.delete().catch(() => undefined);
  return out;
}
