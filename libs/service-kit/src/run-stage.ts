// The process shell around one pipeline stage: connect, make sure the
// streams exist, consume the stage's queues, and on SIGINT/SIGTERM stop
// pulling, let in-flight messages finish (and ack), release the stage's
// resources and close NATS. The stage itself only supplies handlers.
import {
  type Consumption,
  consume,
  ensureStreams,
  type Handler,
  publishJobEvent,
  type TopologyOptions,
  WORK_QUEUE_NAMES,
  type WorkQueue,
} from '@codesift/bus';
import { errorMessage } from '@codesift/core';
import { JobEvent_Kind } from '@codesift/proto';
import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { readServiceConfig, type ServiceConfig } from './config.js';
import { connectWithRetry } from './connect.js';
import { createLogger, type Logger } from './log.js';

/** One queue a stage consumes and what it does with each message. */
export type StageBinding = {
  [Q in WorkQueue]: { queue: Q; handler: Handler<Q> };
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
    log,
  });
  let instance: StageInstance | undefined;
  const consumptions: Consumption[] = [];
  try {
    // Every service does this at start-up; it is idempotent and race-safe,
    // so no start order between services is needed.
    await ensureStreams(await jetstreamManager(nc), withAckWait(opts.topology, config.ackWaitMs));
    const js = jetstream(nc);
    const runtime: StageRuntime = { config, env, log, nc, js };
    instance = await stage.init(runtime);
    for (const binding of instance.bindings) {
      consumptions.push(
        await consume(js, binding.queue, reportFailures(js, stage.name, binding) as never, {
          maxInFlight: opts.maxInFlight ?? 8,
          pullExpiresMs: config.pullExpiresMs,
          onError: (err, where) => log.warn(`${where} error`, { queue: binding.queue, error: err }),
        }),
      );
    }
    log.info('started', {
      queues: instance.bindings.map((b) => b.queue),
      nats: config.natsUrl,
      index: config.indexPath,
    });
    return supervise(stage.name, runtime, instance, consumptions, opts.handleSignals ?? true);
  } catch (err) {
    await Promise.allSettled(consumptions.map((c) => c.stop()));
    await instance?.close?.();
    await nc.close().catch(() => undefined);
    throw err;
  }
}

/**
 * A file whose last attempt failed is about to be dead-lettered by the
 * consumer loop; telling the job first keeps its progress from waiting for
 * a file that will never be done.
 */
function reportFailures(js: JetStreamClient, stage: string, binding: StageBinding) {
  const handler = binding.handler as Handler<WorkQueue>;
  const wrapped: Handler<WorkQueue> = async (message, ctx) => {
    try {
      await handler(message, ctx);
    } catch (err) {
      if (ctx.deliveries >= ctx.maxAttempts) {
        await publishJobEvent(
          js,
          {
            jobId: ctx.jobId,
            stage,
            path: message.path,
            kind: JobEvent_Kind.FILE_FAILED,
            detail: errorMessage(err),
          },
          { traceparent: ctx.trace, msgId: `${ctx.jobId}:${message.path}:failed`, attempts: 2 },
        ).catch(() => undefined);
      }
      throw err;
    }
  };
  return wrapped;
}

function supervise(
  name: string,
  runtime: StageRuntime,
  instance: StageInstance,
  consumptions: Consumption[],
  handleSignals: boolean,
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

  return { name, runtime, stop, stopped };
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
