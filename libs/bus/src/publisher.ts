// Typed publishing onto the work queues and the job-events stream: protobuf
// payload, trace and job headers, JetStream publish acks, msgID dedupe.
import { create, fromBinary, type MessageInitShape, toBinary } from '@bufbuild/protobuf';
import { type JobEvent, JobEventSchema } from '@codesift/proto';
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';
import {
  type Attributes,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { createWork, encodeWork, type WorkMessageInit, workMessageId } from './codec.js';
import { HEADER } from './headers.js';
import {
  EVENTS,
  JOBS_STARTED_SUBJECT,
  jobEventsSubject,
  WORK_QUEUES,
  type WorkQueue,
} from './subjects.js';
import {
  formatTraceparent,
  fromSpanContext,
  newRootTrace,
  parseTraceparent,
  type TraceContext,
  toSpanContext,
} from './trace-context.js';

export interface PublishOptions {
  /**
   * Trace context of the span doing the publishing (a consumer's ctx.trace),
   * or a traceparent header string. Without one the active OpenTelemetry
   * span is the parent, and without that a new trace starts here, so every
   * file has a trace from the scanner on.
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

/**
 * Starts the PRODUCER span of one publish (a no-op span without an SDK) and
 * writes the trace headers: the span's own context when it is recorded, so
 * the consumer's span becomes its child; otherwise the explicit or active
 * parent unchanged; otherwise a new root.
 */
function startPublish(
  h: MsgHdrs,
  subject: string,
  opts: Pick<PublishOptions, 'traceparent' | 'tracestate'>,
  attributes: Attributes,
): Span {
  const explicit =
    typeof opts.traceparent === 'string'
      ? parseTraceparent(opts.traceparent, opts.tracestate)
      : opts.traceparent;
  // An explicit parent that is the active span (a handler passing ctx.trace)
  // keeps the in-process context; any other becomes a remote parent.
  const active = trace.getSpanContext(context.active());
  const parent =
    !explicit || (active?.spanId === explicit.spanId && active.traceId === explicit.traceId)
      ? context.active()
      : trace.setSpanContext(ROOT_CONTEXT, toSpanContext(explicit));
  const span = trace.getTracer('@codesift/bus').startSpan(
    `send ${subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'publish',
        'messaging.destination.name': subject,
        ...attributes,
      },
    },
    parent,
  );
  const ctx = fromSpanContext(span.spanContext()) ?? newRootTrace();
  h.set(HEADER.traceparent, formatTraceparent(ctx));
  const state = opts.tracestate ?? ctx.traceState;
  if (state) h.set(HEADER.tracestate, state);
  return span;
}

/** Runs the publish under its span: ack details on success, ERROR status on failure. */
async function traced(span: Span, publishing: Promise<PubAck>): Promise<PubAck> {
  try {
    const ack = await publishing;
    span.setAttribute('messaging.nats.stream', ack.stream);
    span.setAttribute('messaging.nats.stream_sequence', ack.seq);
    if (ack.duplicate) span.setAttribute('messaging.nats.duplicate', true);
    return ack;
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: err instanceof Error ? err.message : String(err),
    });
    throw err;
  } finally {
    span.end();
  }
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
  const subject = WORK_QUEUES[queue].subject;
  const jobId = (message as { jobId: string }).jobId;
  const msgId = opts.msgId === null ? undefined : (opts.msgId ?? workMessageId(queue, message));
  const payload = encodeWork(queue, message);
  const span = startPublish(h, subject, opts, {
    'messaging.message.body.size': payload.length,
    ...(msgId ? { 'messaging.message.id': msgId } : {}),
    ...(jobId ? { 'codesift.job_id': jobId } : {}),
  });
  if (jobId) h.set(HEADER.job, jobId);
  return traced(span, publishWithRetry(js, subject, payload, h, msgId, opts));
}

/** Publishes job progress to `codesift.events.job.<jobId>` (kept in a limits stream). */
export async function publishJobEvent(
  js: JetStreamClient,
  event: MessageInitShape<typeof JobEventSchema>,
  opts: PublishOptions = {},
): Promise<PubAck> {
  const msg = create(JobEventSchema, event);
  return publishEventOn(js, jobEventsSubject(msg.jobId), msg, opts);
}

/**
 * Announces a job's JOB_QUEUED event on JOBS_STARTED_SUBJECT as well, where
 * latestJobId finds the newest job of the whole cluster.
 */
export async function announceJob(
  js: JetStreamClient,
  event: MessageInitShape<typeof JobEventSchema>,
  opts: PublishOptions = {},
): Promise<PubAck> {
  return publishEventOn(js, JOBS_STARTED_SUBJECT, create(JobEventSchema, event), opts);
}

/** The id of the newest job any replica announced, or undefined when the stream has none. */
export async function latestJobId(js: JetStreamClient): Promise<string | undefined> {
  const jsm = await js.jetstreamManager();
  const last = await jsm.streams
    .getMessage(EVENTS.stream, { last_by_subj: JOBS_STARTED_SUBJECT })
    .catch(() => null);
  return last ? fromBinary(JobEventSchema, last.data).jobId : undefined;
}

async function publishEventOn(
  js: JetStreamClient,
  subject: string,
  msg: JobEvent,
  opts: PublishOptions,
): Promise<PubAck> {
  const h = natsHeaders();
  const payload = toBinary(JobEventSchema, msg);
  const span = startPublish(h, subject, opts, {
    'messaging.message.body.size': payload.length,
    ...(opts.msgId ? { 'messaging.message.id': opts.msgId } : {}),
    'codesift.job_id': msg.jobId,
  });
  h.set(HEADER.job, msg.jobId);
  return traced(span, publishWithRetry(js, subject, payload, h, opts.msgId ?? undefined, opts));
}
