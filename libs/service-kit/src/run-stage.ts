// The process shell around one pipeline stage: connect, make sure the
// streams exist, consume the stage's queues, and on SIGINT/SIGTERM stop
// pulling, let in-flight messages finish (and ack), release the stage's
// resources and close NATS. The stage itself only supplies handlers, which
// return what they made of a batch (see stage-result.ts); publishing it is
// done here.
import {
  type AnyBatch,
  type Consumption,
  consume,
  encodeWork,
  ensureStreams,
  type Handler,
  type HandlerContext,
  publishDeadLetter,
  publishJobEvent,
  singleFileBatch,
  type TopologyOptions,
  WORK_QUEUE_NAMES,
  type WorkFile,
  type WorkMessage,
  type WorkQueue,
  workMessageId,
} from '@codesift/bus';
import { errorMessage } from '@codesift/core';
import { JobEvent_Kind } from '@codesift/proto';
import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { readServiceConfig, type ServiceConfig } from './config.js';
import { connectWithRetry } from './connect.js';
import { type HealthServer, startHealthServer } from './health.js';
import { createLogger, type Logger } from './log.js';
import { type StageResult, storeResult } from './stage-result.js';

/** What a stage handler gets besides the batch: the consumer's context, and a way to fail one file. */
export interface StageContext<Q extends WorkQueue = WorkQueue> extends HandlerContext {
  /**
   * Reports one file of the batch that no retry can fix (bad input): a dead
   * letter with the reason, whose payload is a batch of that file alone (so
   * it can be replayed onto the same subject), and FILE_FAILED for the job.
   * The handler then goes on with the rest of the batch. Rejects when either
   * could not be stored; the handler should let that fail the batch, which
   * is then redelivered (a file reported twice counts once).
   */
  fileFailed(file: WorkFile<Q>, reason: string): Promise<void>;
}

/**
 * A stage's work on one batch: what it resolves with (its outputs, failed
 * and done files) is stored by runStage, then the batch is acked. Throwing
 * means a transient failure (a busy store, a model call): the whole batch
 * is retried, so the handler must be idempotent per batch.
 */
export type StageHandler<Q extends WorkQueue> = (
  batch: WorkMessage<Q>,
  ctx: StageContext<Q>,
) => Promise<StageResult<Q> | undefined> | Promise<void>;

/** One queue a stage consumes and what it does with each message. */
export type StageBinding = {
  [Q in WorkQueue]: {
    queue: Q;
    handler: StageHandler<Q>;
    /** Batches handled at once by this process; default RunStageOptions.maxInFlight. */
    maxInFlight?: number;
  };
}[WorkQueue];

export interface StageRuntime {
  readonly config: ServiceConfig;
  /** The environment the config was read from, for stage-specific settings. */
  readonly env: NodeJS.ProcessEnv;
  readonly log: Logger;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
}

export interface StageInstance {
  bindings: StageBinding[];
  /** Releases what init opened (an index, a model); runs after in-flight work ended. */
  close?: () => Promise<void> | void;
}

export interface StageDefinition {
  readonly name: string;
  init(runtime: StageRuntime): Promise<StageInstance>;
}

export interface RunStageOptions {
  env?: NodeJS.ProcessEnv;
  /** Install SIGINT/SIGTERM handlers; default true (tests running in-process pass false). */
  handleSignals?: boolean;
  topology?: TopologyOptions;
  /** Handlers running at once per queue; default 8. */
  maxInFlight?: number;
  log?: Logger;
}

export interface RunningStage {
  readonly name: string;
  readonly runtime: StageRuntime;
  /** Graceful stop: in-flight messages finish and are acked first. */
  stop(reason?: string): Promise<void>;
  /** Resolves with the exit code the process should use once the stage has stopped. */
  readonly stopped: Promise<number>;
  /** The /livez and /readyz server, when CODESIFT_HEALTH_PORT is set. */
  readonly health: HealthServer | undefined;
}

/**
 * Starts `stage` in this process. Resolves once every queue is being
 * consumed; a stage that cannot start (no NATS, bad config) rejects.
 */
export async function runStage(
  stage: StageDefinition,
  opts: RunStageOptions = {},
): Promise<RunningStage> {
  const env = opts.env ?? process.env;
  const config = readServiceConfig(stage.name, env);
  const log = opts.log ?? createLogger(stage.name);
  const nc = await connectWithRetry(config.natsUrl, {
    name: `codesift-${stage.name}`,
    attempts: config.connectAttempts,
    auth: config.natsAuth,
    log,
  });
  let instance: StageInstance | undefined;
  const consumptions: Consumption[] = [];
  let health: HealthServer | undefined;
  try {
    // Every service does this at start-up; it is idempotent and race-safe,
    // so no start order between services is needed.
    await ensureStreams(await jetstreamManager(nc), withAckWait(opts.topology, config.ackWaitMs));
    const js = jetstream(nc);
    const runtime: StageRuntime = { config, env, log, nc, js };
    instance = await stage.init(runtime);
    for (const binding of instance.bindings) {
      consumptions.push(
        await consume(js, binding.queue, runHandler(js, nc, stage.name, binding, log) as never, {
          maxInFlight: binding.maxInFlight ?? opts.maxInFlight ?? 8,
          pullExpiresMs: config.pullExpiresMs,
          onError: (err, where) => log.warn(`${where} error`, { queue: binding.queue, error: err }),
          // Every attempt crashed or timed out: the job must still hear about its files.
          onExhausted: (message, reason) =>
            reportBatchFailed(js, stage.name, binding.queue, message, reason),
        }),
      );
    }
    if (config.health) {
      const consumers = instance.bindings.map((b, i) => ({
        queue: b.queue,
        consumption: consumptions[i]!,
      }));
      health = await startHealthServer({ nc, consumers }, config.health.host, config.health.port);
    }
    log.info('started', {
      queues: instance.bindings.map((b) => b.queue),
      nats: config.natsUrl,
      index: config.indexPath,
      ...(health ? { health: health.port } : {}),
    });
    return supervise(stage.name, runtime, instance, consumptions, {
      handleSignals: opts.handleSignals ?? true,
      health,
    });
  } catch (err) {
    await health?.close();
    await Promise.allSettled(consumptions.map((c) => c.stop()));
    await instance?.close?.();
    await nc.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Gives the handler its per-file failure report, stores what it returns,
 * and when a batch's last attempt fails (it is about to be dead-lettered
 * whole by the consumer loop), tells the job that every file of it failed,
 * so its progress does not wait for files that will never be done.
 */
function runHandler(
  js: JetStreamClient,
  nc: NatsConnection,
  stage: string,
  binding: StageBinding,
  log: Logger,
) {
  const queue = binding.queue;
  const handler = binding.handler as StageHandler<WorkQueue>;
  const wrapped: Handler<WorkQueue> = async (message, ctx) => {
    const batch = message as unknown as AnyBatch;
    const failed = new Set<string>();
    const stageCtx: StageContext = {
      ...ctx,
      fileFailed: async (file, reason) => {
        const single = singleFileBatch(queue, batch.jobId, file as never);
        await publishDeadLetter(js, {
          subject: ctx.subject,
          stage: ctx.stage,
          reason,
          deliveries: ctx.deliveries,
          payload: encodeWork(queue, single),
          headers: ctx.headers,
          msgId: `${workMessageId(queue, single)}:dead`,
        });
        await publishJobEvent(
          js,
          {
            jobId: batch.jobId,
            stage,
            path: file.path,
            kind: JobEvent_Kind.FILE_FAILED,
            detail: reason,
          },
          { traceparent: ctx.trace, msgId: `${batch.jobId}:${file.path}:failed` },
        );
        failed.add(file.path);
      },
    };
    try {
      const result = await handler(message, stageCtx);
      if (result) {
        const { duplicates } = await storeResult(
          {
            js,
            maxPayload: nc.info?.max_payload,
            stage,
            queue,
            batch: message,
            trace: ctx.trace,
            fileFailed: stageCtx.fileFailed,
          },
          result,
        );
        // A redelivered batch whose outputs were stored before its ack was lost.
        if (duplicates > 0) log.info('duplicates dropped', { queue, duplicates });
      }
    } catch (err) {
      if (ctx.deliveries >= ctx.maxAttempts) {
        await reportBatchFailed(js, stage, queue, message, errorMessage(err), {
          alreadyFailed: failed,
          traceparent: ctx.trace,
        }).catch(() => undefined);
      }
      throw err;
    }
  };
  return wrapped;
}

/** An index job request that will never run: its watchers must hear it ended. */
function failJob(js: JetStreamClient, stage: string, jobId: string, detail: string) {
  return publishJobEvent(
    js,
    { jobId, stage, kind: JobEvent_Kind.JOB_FAILED, detail },
    // The scanner's own failure report uses the same id: one event either way.
    { msgId: `${jobId}:job-failed`, attempts: 2 },
  );
}

/**
 * A batch that is being dead-lettered: one FILES event failing each of its
 * files not already reported (a jobs request fails its job instead).
 */
async function reportBatchFailed(
  js: JetStreamClient,
  stage: string,
  queue: WorkQueue,
  message: unknown,
  detail: string,
  opts: { alreadyFailed?: ReadonlySet<string>; traceparent?: HandlerContext['trace'] } = {},
): Promise<void> {
  const batch = message as AnyBatch;
  if (!batch.jobId || batch.files.length === 0) return;
  if (queue === 'jobs') {
    await failJob(js, stage, batch.jobId, detail);
    return;
  }
  const files = batch.files
    .filter((f) => !opts.alreadyFailed?.has(f.path))
    .map((f) => ({ path: f.path, kind: JobEvent_Kind.FILE_FAILED, detail }));
  await publishJobEvent(
    js,
    { jobId: batch.jobId, stage, kind: JobEvent_Kind.FILES, files },
    {
      ...(opts.traceparent ? { traceparent: opts.traceparent } : {}),
      msgId: `${workMessageId(queue, message as never)}:failed`,
      attempts: 2,
    },
  );
}

function supervise(
  name: string,
  runtime: StageRuntime,
  instance: StageInstance,
  consumptions: Consumption[],
  { handleSignals, health }: { handleSignals: boolean; health: HealthServer | undefined },
): RunningStage {
  const { log, nc } = runtime;
  let stopping: Promise<void> | undefined;
  let exitCode = 0;
  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => {
    resolveStopped = resolve;
  });

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C means "now": skip the drain.
      log.warn('second signal, exiting without draining', { signal });
      process.exit(130);
    }
    void stop(signal);
  };
  if (handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  const stop = (reason = 'stop'): Promise<void> => {
    stopping ??= (async () => {
      log.info('stopping: draining in-flight messages', { reason });
      await health?.close();
      await Promise.allSettled(consumptions.map((c) => c.stop()));
      try {
        await instance.close?.();
      } catch (err) {
        exitCode = 1;
        log.error('close failed', { error: err });
      }
      await nc.drain().catch(() => undefined);
      if (handleSignals) {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      const stats = consumptions.map((c) => ({ ...c.stats }));
      log.info('stopped', { acked: sum(stats, 'acked'), retried: sum(stats, 'retried') });
      resolveStopped(exitCode);
    })();
    return stopping;
  };

  // The client reconnects forever, so a closed connection means it was
  // closed for good (or by stop()); the stage cannot go on without it.
  void nc.closed().then((err) => {
    if (stopping) return;
    exitCode = 1;
    log.error('nats connection closed', { error: err ?? 'closed' });
    void stop('connection closed');
  });

  return { name, runtime, stop, stopped, health };
}

function sum(stats: { acked: number; retried: number }[], key: 'acked' | 'retried'): number {
  return stats.reduce((n, s) => n + s[key], 0);
}

/** Applies CODESIFT_ACK_WAIT_MS to every work queue, under any explicit per-queue policy. */
export function withAckWait(
  topology: TopologyOptions | undefined,
  ackWaitMs: number | undefined,
): TopologyOptions | undefined {
  if (ackWaitMs === undefined) return topology;
  const policies: NonNullable<TopologyOptions['policies']> = {};
  for (const q of WORK_QUEUE_NAMES) policies[q] = { ackWaitMs, ...topology?.policies?.[q] };
  return { ...topology, policies };
}
