// Typed publishing onto the work queues and the job-events stream: protobuf
// payload, trace and job headers, JetStream publish acks, msgID dedupe.
import { create, type MessageInitShape, toBinary } from '@bufbuild/protobuf';
import { JobEventSchema } from '@codesift/proto';
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';
import { createWork, encodeWork, type WorkMessageInit, workMessageId } from './codec.js';
import { HEADER } from './headers.js';
import { jobEventsSubject, WORK_QUEUES, type WorkQueue } from './subjects.js';
import {
  formatTraceparent,
  newRootTrace,
  parseTraceparent,
  type TraceContext,
} from './trace-context.js';

export interface PublishOptions {
  /**
   * Trace context of the span doing the publishing (a consumer's ctx.trace),
   * or a traceparent header string. Without one a new trace starts here, so
   * every file has a trace from the scanner on.
   */
  traceparent?: TraceContext | string;
  tracestate?: string;
  /** Overrides the derived msgID; null publishes without dedupe. */
  msgId?: string | null;
  /** Publish-ack timeout per attempt; default 5 s. */
  timeoutMs?: number;
  /**
   * Attempts on transient failures (no ack, no responders, reconnecting).
   * Retrying is safe because the msgID makes the publish idempotent.
   */
  attempts?: number;
  /** Delay between attempts, doubled each time; default 250 ms. */
  retryDelayMs?: number;
}

function traceHeaders(
  h: MsgHdrs,
  opts: Pick<PublishOptions, 'traceparent' | 'tracestate'>,
): TraceContext {
  const ctx =
    typeof opts.traceparent === 'string'
      ? parseTraceparent(opts.traceparent, opts.tracestate)
      : opts.traceparent;
  const trace = ctx ?? newRootTrace();
  h.set(HEADER.traceparent, formatTraceparent(trace));
  const state = opts.tracestate ?? trace.traceState;
  if (state) h.set(HEADER.tracestate, state);
  return trace;
}

async function publishWithRetry(
  js: JetStreamClient,
  subject: string,
  payload: Uint8Array,
  h: MsgHdrs,
  msgId: string | undefined,
  opts: PublishOptions,
): Promise<PubAck> {
  const attempts = Math.max(1, opts.attempts ?? 5);
  let delay = opts.retryDelayMs ?? 250;
  for (let attempt = 1; ; attempt++) {
    try {
      return await js.publish(subject, payload, {
        headers: h,
        timeout: opts.timeoutMs ?? 5000,
        ...(msgId ? { msgID: msgId } : {}),
      });
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}

/**
 * Publishes one message to a work queue and resolves once JetStream has
 * stored it (or recognised it as a duplicate: `ack.duplicate`).
 */
export async function publish<Q extends WorkQueue>(
  js: JetStreamClient,
  queue: Q,
  init: WorkMessageInit<Q>,
  opts: PublishOptions = {},
): Promise<PubAck> {
  const message = createWork(queue, init);
  const h = natsHeaders();
  traceHeaders(h, opts);
  const jobId = (message as { jobId: string }).jobId;
  if (jobId) h.set(HEADER.job, jobId);
  const msgId = opts.msgId === null ? undefined : (opts.msgId ?? workMessageId(queue, message));
  return publishWithRetry(
    js,
    WORK_QUEUES[queue].subject,
    encodeWork(queue, message),
    h,
    msgId,
    opts,
  );
}

/** Publishes job progress to `codesift.events.job.<jobId>` (kept in a limits stream). */
export async function publishJobEvent(
  js: JetStreamClient,
  event: MessageInitShape<typeof JobEventSchema>,
  opts: PublishOptions = {},
): Promise<PubAck> {
  const msg = create(JobEventSchema, event);
  const h = natsHeaders();
  traceHeaders(h, opts);
  h.set(HEADER.job, msg.jobId);
  return publishWithRetry(
    js,
    jobEventsSubject(msg.jobId),
    toBinary(JobEventSchema, msg),
    h,
    opts.msgId ?? undefined,
    opts,
  );
}
