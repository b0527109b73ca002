// The typed consumer loop one service replica runs for its stage: pull from
// the stage's durable consumer, decode, run the handler, ack only after the
// handler (the durable write) resolved, retry with backoff, dead-letter what
// can never succeed.

import { codesiftMetrics, observeQueueDepth, secondsSince } from '@codesift/telemetry';
import type { Consumer, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import {
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { DecodeError, decodeWork, type WorkMessage } from './codec.js';
import { publishDeadLetter } from './dead-letter.js';
import { HEADER } from './headers.js';
import { WORK_QUEUES, type WorkQueue } from './subjects.js';
import {
  childTrace,
  fromSpanContext,
  newRootTrace,
  parseTraceparent,
  type TraceContext,
  toSpanContext,
} from './trace-context.js';

export interface HandlerContext {
  readonly queue: WorkQueue;
  /** The consuming stage (durable consumer name). */
  readonly stage: string;
  readonly subject: string;
  readonly jobId: string;
  /** 1 on first delivery. */
  readonly deliveries: number;
  /** Handler attempts allowed before dead-letter. */
  readonly maxAttempts: number;
  /**
   * This stage's span: same trace as the incoming message, new span id.
   * With an OpenTelemetry SDK running it is the CONSUMER span recorded for
   * this message (also the active span while the handler runs). Pass it as
   * `traceparent` when publishing follow-up messages, so they become its
   * children; publish() without one uses the active span, which is the same.
   */
  readonly trace: TraceContext;
  /** Span id of the publisher, when the message carried a trace. */
  readonly parentSpanId: string | undefined;
  readonly headers: MsgHdrs | undefined;
  /** Extends the ack deadline now (the loop also does this on a timer). */
  working(): void;
}

export type Handler<Q extends WorkQueue> = (
  message: WorkMessage<Q>,
  ctx: HandlerContext,
) => Promise<void>;

export interface ConsumeOptions {
  /** Most messages asked for in one pull; default 16. */
  batch?: number;
  /** Most handlers running at once in this process; default `batch`. */
  maxInFlight?: number;
  /** Aborting stops the loop gracefully, like stop(). */
  signal?: AbortSignal;
  /**
   * Nak delay after a failed attempt n (index n-1; the last value repeats).
   * Default 1 s, 5 s, 15 s, 30 s.
   */
  retryBackoffMs?: number[];
  /** Interval of working() heartbeats while a handler runs; default ack_wait / 3. */
  heartbeatMs?: number;
  /** How long one pull request waits for messages; default 5 s (min 1 s). */
  pullExpiresMs?: number;
  /** Told about failures the loop handles itself (handler errors, pull errors). */
  onError?: (err: unknown, where: 'handler' | 'pull' | 'dead-letter' | 'ack') => void;
  /**
   * Called before a message is dead-lettered without its handler running
   * (every attempt crashed or timed out), so the job can hear that its files
   * failed; a handler's own last failure is the handler's to report.
   */
  onExhausted?: (message: WorkMessage<WorkQueue>, reason: string) => Promise<void> | void;
}

export interface ConsumeStats {
  received: number;
  acked: number;
  retried: number;
  deadLettered: number;
  inFlight: number;
  /** Highest number of handlers that ran at once. */
  peakInFlight: number;
}

export interface Consumption {
  readonly stats: Readonly<ConsumeStats>;
  /** Stops pulling, lets in-flight handlers finish (and ack), then resolves. */
  stop(): Promise<void>;
  /** Resolves when the loop has ended (stop, abort, or the connection closed). */
  readonly closed: Promise<void>;
  /** False once the loop has ended: the process no longer takes this queue's work. */
  readonly running: boolean;
}

const DEFAULT_BACKOFF_MS = [1000, 5000, 15_000, 30_000];

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Whether `err` says the NATS connection was closed (for good, not reconnecting). */
export function isConnectionClosed(err: unknown): boolean {
  return err instanceof Error && /closed/i.test(err.message) && /connection/i.test(err.message);
}

/**
 * Starts consuming `queue` as its stage's durable consumer; resolves once
 * bound. Every replica calling this shares the work (queue-group semantics).
 */
export async function consume<Q extends WorkQueue>(
  js: JetStreamClient,
  queue: Q,
  handler: Handler<Q>,
  opts: ConsumeOptions = {},
): Promise<Consumption> {
  const def = WORK_QUEUES[queue];
  const consumer = await js.consumers.get(def.stream, def.durable);
  const { config } = await consumer.info(true);
  const ackWaitMs = Math.max(1, Math.round((config.ack_wait ?? 30e9) / 1e6));
  // The server allows one delivery more than the handler attempts (see
  // consumerConfig); a consumer set up elsewhere without a limit retries forever.
  const serverMax = config.max_deliver ?? -1;
  const maxAttempts =
    serverMax > 1 ? serverMax - 1 : serverMax === 1 ? 1 : Number.POSITIVE_INFINITY;
  const loop = new ConsumerLoop(js, consumer, queue, handler, opts, ackWaitMs, maxAttempts);
  loop.start();
  // Every replica reports the consumer's shared backlog: read it as max per stage, not sum.
  const stopObserving = observeQueueDepth({ stage: def.durable, queue }, async () => {
    const info = await consumer.info();
    return info.num_pending + info.num_ack_pending;
  });
  void loop.closed.finally(stopObserving);
  return loop;
}

class ConsumerLoop<Q extends WorkQueue> implements Consumption {
  readonly stats: ConsumeStats = {
    received: 0,
    acked: 0,
    retried: 0,
    deadLettered: 0,
    inFlight: 0,
    peakInFlight: 0,
  };
  closed!: Promise<void>;
  running = true;
  private stopping = false;
  private readonly inFlight = new Set<Promise<void>>();
  private wake: (() => void) | undefined;
  private readonly batch: number;
  private readonly maxInFlight: number;
  private readonly backoff: number[];
  private readonly heartbeatMs: number;
  private readonly expires: number;
  private readonly def;

  constructor(
    private readonly js: JetStreamClient,
    private readonly consumer: Consumer,
    private readonly queue: Q,
    private readonly handler: Handler<Q>,
    private readonly opts: ConsumeOptions,
    ackWaitMs: number,
    private readonly maxAttempts: number,
  ) {
    this.def = WORK_QUEUES[queue];
    this.batch = Math.max(1, opts.batch ?? 16);
    this.maxInFlight = Math.max(1, opts.maxInFlight ?? this.batch);
    this.backoff = opts.retryBackoffMs?.length ? opts.retryBackoffMs : DEFAULT_BACKOFF_MS;
    this.heartbeatMs = Math.max(100, opts.heartbeatMs ?? Math.floor(ackWaitMs / 3));
    this.expires = Math.max(1000, opts.pullExpiresMs ?? 5000);
  }

  start(): void {
    const signal = this.opts.signal;
    if (signal) {
      if (signal.aborted) this.stopping = true;
      else signal.addEventListener('abort', () => void this.stop(), { once: true });
    }
    this.closed = this.run().finally(() => {
      this.running = false;
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.closed;
  }

  private async run(): Promise<void> {
    let pullFailures = 0;
    while (!this.stopping) {
      // In-process back-pressure: only ask for as many messages as there are
      // free handler slots, so nothing waits in a client buffer while its ack
      // deadline runs.
      while (this.inFlight.size >= this.maxInFlight && !this.stopping) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
      if (this.stopping) break;
      const want = Math.min(this.batch, this.maxInFlight - this.inFlight.size);
      try {
        const messages = await this.consumer.fetch({ max_messages: want, expires: this.expires });
        for await (const m of messages) {
          // A pull already granted when stop() was called still delivers;
          // hand those messages straight back rather than letting them wait
          // out the ack deadline.
          if (this.stopping) m.nak();
          else this.dispatch(m);
        }
        pullFailures = 0;
      } catch (err) {
        if (isConnectionClosed(err)) break;
        this.opts.onError?.(err, 'pull');
        pullFailures++;
        await this.sleep(Math.min(5000, 100 * 2 ** Math.min(pullFailures, 6)));
      }
    }
    await Promise.allSettled([...this.inFlight]);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    }).finally(() => {
      this.wake = undefined;
    });
  }

  private dispatch(m: JsMsg): void {
    this.stats.received++;
    const p: Promise<void> = this.process(m).finally(() => {
      this.inFlight.delete(p);
      this.stats.inFlight = this.inFlight.size;
      this.wake?.();
    });
    this.inFlight.add(p);
    this.stats.inFlight = this.inFlight.size;
    this.stats.peakInFlight = Math.max(this.stats.peakInFlight, this.inFlight.size);
  }

  /**
   * One message under one CONSUMER span whose parent is the publisher's
   * traceparent header; the handler runs with that span active. Without an
   * OpenTelemetry SDK the span is a no-op and only the headers carry the trace.
   */
  private async process(m: JsMsg): Promise<void> {
    const started = performance.now();
    const stage = { stage: this.def.durable };
    // The message's age when taken: publish (stream time) to now, retries included.
    codesiftMetrics().queueWait.record(
      Math.max(0, (Date.now() - m.info.timestampNanos / 1e6) / 1000),
      stage,
    );
    const incoming = parseTraceparent(
      m.headers?.get(HEADER.traceparent),
      m.headers?.get(HEADER.tracestate) || undefined,
    );
    const parent = incoming
      ? trace.setSpanContext(ROOT_CONTEXT, toSpanContext(incoming))
      : ROOT_CONTEXT;
    const jobHeader = m.headers?.get(HEADER.job);
    const span = trace.getTracer('@codesift/bus').startSpan(
      `process ${m.subject}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'process',
          'messaging.operation.name': 'process',
          'messaging.destination.name': m.subject,
          'messaging.consumer.group.name': this.def.durable,
          'messaging.message.body.size': m.data.length,
          'messaging.nats.stream': m.info.stream,
          'messaging.nats.stream_sequence': m.seq,
          'messaging.nats.delivery_count': m.info.deliveryCount,
          ...(jobHeader ? { 'codesift.job_id': jobHeader } : {}),
        },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), () => this.handle(m, span, incoming));
    } finally {
      span.end();
      codesiftMetrics().stageDuration.record(secondsSince(started), stage);
    }
  }

  private async handle(m: JsMsg, span: Span, incoming: TraceContext | undefined): Promise<void> {
    const deliveries = m.info.deliveryCount;
    let message: WorkMessage<Q>;
    try {
      message = decodeWork(this.queue, m.data);
    } catch (err) {
      // Redelivering bytes that cannot decode would fail the same way every time.
      const reason = err instanceof DecodeError ? err.message : `decode: ${errorText(err)}`;
      return this.deadLetter(m, reason, deliveries, span);
    }
    const jobId = (message as { jobId: string }).jobId;
    if (jobId) span.setAttribute('codesift.job_id', jobId);
    annotateFiles(span, message);
    if (deliveries > this.maxAttempts) {
      const reason = `max deliveries: ${this.maxAttempts} attempt(s) ended without ack (handler crashed or timed out)`;
      try {
        await this.opts.onExhausted?.(message as WorkMessage<WorkQueue>, reason);
      } catch (err) {
        this.opts.onError?.(err, 'dead-letter');
      }
      return this.deadLetter(m, reason, deliveries, span);
    }
    // The recorded span is this stage's span; a no-op span (no SDK) keeps
    // the parent's ids, and then a fresh child id stands in for it.
    const own = fromSpanContext(span.spanContext());
    const ctx: HandlerContext = {
      queue: this.queue,
      stage: this.def.durable,
      subject: m.subject,
      jobId,
      deliveries,
      maxAttempts: this.maxAttempts,
      trace:
        own && own.spanId !== incoming?.spanId
          ? own
          : incoming
            ? childTrace(incoming)
            : newRootTrace(),
      parentSpanId: incoming?.spanId,
      headers: m.headers,
      working: () => m.working(),
    };
    const heartbeat = setInterval(() => {
      try {
        m.working();
      } catch {
        // Connection gone: the server will redeliver, so stop beating.
        clearInterval(heartbeat);
      }
    }, this.heartbeatMs);
    // A heartbeat alone must not keep a process alive that is shutting down.
    heartbeat.unref();
    try {
      await this.handler(message, ctx);
    } catch (err) {
      clearInterval(heartbeat);
      this.opts.onError?.(err, 'handler');
      failSpan(span, err);
      const reason = `handler: ${errorText(err)}`;
      if (deliveries >= this.maxAttempts) return this.deadLetter(m, reason, deliveries, span);
      const delay = this.backoff[Math.min(deliveries - 1, this.backoff.length - 1)] ?? 0;
      return this.settle(() => m.nak(delay), 'retried', span);
    }
    clearInterval(heartbeat);
    this.settle(() => m.ack(), 'acked', span);
    countHandled(this.def.durable, message);
  }

  private settle(fn: () => void, stat: 'acked' | 'retried' | 'deadLettered', span?: Span): void {
    try {
      fn();
      this.stats[stat]++;
      codesiftMetrics().messages.add(1, { stage: this.def.durable, outcome: stat });
      span?.setAttribute('codesift.outcome', stat);
    } catch (err) {
      // The connection closed under us: the message stays unacked and is
      // redelivered after ack_wait, which idempotent handlers tolerate.
      this.opts.onError?.(err, 'ack');
      span?.setAttribute('codesift.outcome', 'unsettled');
    }
  }

  private async deadLetter(
    m: JsMsg,
    reason: string,
    deliveries: number,
    span?: Span,
  ): Promise<void> {
    span?.addEvent('dead-letter', { 'codesift.reason': reason });
    span?.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    try {
      await publishDeadLetter(this.js, {
        subject: m.subject,
        stage: this.def.durable,
        reason,
        deliveries,
        payload: m.data,
        headers: m.headers,
        // One letter per message: a redelivery after the letter was stored
        // but before the ack reached the server (the process killed, the
        // server restarted) is dropped as a duplicate.
        msgId: `${m.info.stream}:${m.info.streamSequence}:dead`,
      });
    } catch (err) {
      // Never drop a message we could not record: leave it for another try.
      this.opts.onError?.(err, 'dead-letter');
      this.settle(() => m.nak(this.backoff[0] ?? 1000), 'retried', span);
      return;
    }
    // The dead letter is stored, so the message is done here: ack, not
    // term(), because nats-server 2.9 keeps a terminated message in a
    // work-queue stream forever, where only an ack removes it.
    this.settle(() => m.ack(), 'deadLettered', span);
  }
}

/** Most paths one span lists: a trace shows which files a batch held, not a whole repository. */
const MAX_SPAN_PATHS = 32;

/** The batch's file count and (the first) paths on its span, so a file's hops can be followed. */
function annotateFiles(span: Span, message: object): void {
  const files = (message as { files?: unknown }).files;
  if (!Array.isArray(files)) return;
  span.setAttribute('codesift.file_count', files.length);
  span.setAttribute(
    'codesift.paths',
    (files as { path: string }[]).slice(0, MAX_SPAN_PATHS).map((f) => f.path),
  );
}

/** Files and chunks (rate: chunks/s) a stage has finished. */
function countHandled(stage: string, message: object): void {
  const files = (message as { files?: unknown }).files;
  if (!Array.isArray(files)) return; // an index job request, not a batch
  const m = codesiftMetrics();
  m.files.add(files.length, { stage });
  let chunks = 0;
  for (const f of files as { chunks?: unknown }[]) {
    if (Array.isArray(f.chunks)) chunks += f.chunks.length;
  }
  if (chunks > 0) m.chunks.add(chunks, { stage });
}

/** Marks the message's span failed: ERROR status plus the exception as an event. */
function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(err) });
}
