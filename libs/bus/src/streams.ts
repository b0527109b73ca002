// Stream and durable consumer configuration, and the idempotent setup that
// creates or updates them. Every service calls ensureStreams at start-up, so
// replicas racing each other must all succeed.
import {
  AckPolicy,
  type ConsumerConfig,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { DEAD_LETTER, EVENTS, WORK_QUEUE_NAMES, WORK_QUEUES, type WorkQueue } from './subjects.js';

/** Delivery policy of one stage's durable consumer. */
export interface ConsumerPolicy {
  /** How long a delivered message may go without ack or heartbeat before redelivery. */
  ackWaitMs: number;
  /** Handler attempts before a message is dead-lettered. */
  maxDeliver: number;
  /** Unacked messages across all replicas of the stage: the back-pressure bound. */
  maxAckPending: number;
}

const DEFAULT_POLICY: ConsumerPolicy = { ackWaitMs: 60_000, maxDeliver: 5, maxAckPending: 256 };

/**
 * Defaults per queue: embedding is the slow, memory-heavy hop, so it gets
 * fewer in flight; so does contextualizing, which asks a chat model about
 * every chunk when one is configured (a backlog then waits in the stream,
 * where the contextualizer's scaling rule sees it, not in a few replicas).
 */
export const DEFAULT_POLICIES: Record<WorkQueue, ConsumerPolicy> = {
  files: DEFAULT_POLICY,
  chunks: { ...DEFAULT_POLICY, ackWaitMs: 120_000, maxAckPending: 64 },
  symbols: DEFAULT_POLICY,
  contextualized: { ...DEFAULT_POLICY, ackWaitMs: 120_000, maxAckPending: 64 },
  embedded: DEFAULT_POLICY,
  deletes: DEFAULT_POLICY,
  jobs: DEFAULT_POLICY,
};

export interface TopologyOptions {
  /** Per-queue overrides of the consumer policy (tests use short ack waits). */
  policies?: Partial<Record<WorkQueue, Partial<ConsumerPolicy>>>;
  /** Window within which a repeated msgID is dropped; default 2 minutes. */
  duplicateWindowMs?: number;
  /** How long job events are kept; default 1 day. */
  eventsMaxAgeMs?: number;
  /** How long dead letters are kept; default 14 days. */
  deadLetterMaxAgeMs?: number;
  storage?: 'file' | 'memory';
}

export function policyFor(queue: WorkQueue, opts: TopologyOptions = {}): ConsumerPolicy {
  return { ...DEFAULT_POLICIES[queue], ...opts.policies?.[queue] };
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function streamConfigs(opts: TopologyOptions = {}): StreamConfig[] {
  const storage = opts.storage === 'memory' ? StorageType.Memory : StorageType.File;
  const duplicateWindow = nanos(opts.duplicateWindowMs ?? 120_000);
  const base = {
    storage,
    discard: DiscardPolicy.Old,
    num_replicas: 1,
    duplicate_window: duplicateWindow,
  };
  const work = WORK_QUEUE_NAMES.map(
    (q) =>
      ({
        ...base,
        name: WORK_QUEUES[q].stream,
        subjects: [WORK_QUEUES[q].subject],
        // Work-queue retention: a message is removed once its consumer acks it.
        retention: RetentionPolicy.Workqueue,
        description: `codesift ${WORK_QUEUES[q].producer} -> ${WORK_QUEUES[q].durable}`,
      }) as StreamConfig,
  );
  return [
    ...work,
    {
      ...base,
      name: EVENTS.stream,
      subjects: [EVENTS.subjects],
      retention: RetentionPolicy.Limits,
      max_age: nanos(opts.eventsMaxAgeMs ?? DAY_MS),
      description: 'codesift job progress events',
    } as StreamConfig,
    {
      ...base,
      name: DEAD_LETTER.stream,
      subjects: [DEAD_LETTER.subjects],
      retention: RetentionPolicy.Limits,
      max_age: nanos(opts.deadLetterMaxAgeMs ?? 14 * DAY_MS),
      description: 'codesift messages a stage gave up on, with the reason',
    } as StreamConfig,
  ];
}

export function consumerConfig(queue: WorkQueue, opts: TopologyOptions = {}): ConsumerConfig {
  const policy = policyFor(queue, opts);
  if (policy.maxDeliver < 1) throw new Error(`bus: maxDeliver must be >= 1 (${queue})`);
  return {
    durable_name: WORK_QUEUES[queue].durable,
    description: `codesift ${WORK_QUEUES[queue].durable} (shared by all replicas)`,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(policy.ackWaitMs),
    // One delivery more than the handler attempts: the consumer loop
    // dead-letters a message whose earlier deliveries all timed out (a
    // crashing or hung handler) when it sees it for the last time, instead of
    // the server silently stopping redelivery and stranding it in the queue.
    max_deliver: policy.maxDeliver + 1,
    max_ack_pending: policy.maxAckPending,
  };
}

function isNotFound(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}

/** Raised when an existing stream or consumer differs in a way NATS cannot update in place. */
export class TopologyError extends Error {
  override readonly name = 'TopologyError';
}

/**
 * Creates every stream and durable consumer, or updates them to the current
 * configuration. Safe to call from many processes at once and repeatedly.
 */
export async function ensureStreams(
  jsm: JetStreamManager,
  opts: TopologyOptions = {},
): Promise<void> {
  for (const cfg of streamConfigs(opts)) {
    await ensureStream(jsm, cfg);
  }
  for (const queue of WORK_QUEUE_NAMES) {
    await ensureConsumer(jsm, WORK_QUEUES[queue].stream, consumerConfig(queue, opts));
  }
}

async function ensureStream(jsm: JetStreamManager, cfg: StreamConfig): Promise<void> {
  let existing: StreamConfig | undefined;
  try {
    existing = (await jsm.streams.info(cfg.name)).config;
  } catch (err) {
    if (!isNotFound(err, JetStreamApiCodes.StreamNotFound)) throw err;
  }
  if (!existing) {
    try {
      await jsm.streams.add(cfg);
      return;
    } catch (err) {
      // Another replica created it between our info and add: update instead.
      if (!(err instanceof JetStreamApiError)) throw err;
      existing = (await jsm.streams.info(cfg.name)).config;
    }
  }
  if (existing.retention !== cfg.retention || existing.storage !== cfg.storage) {
    throw new TopologyError(
      `bus: stream ${cfg.name} exists with retention=${existing.retention} storage=${existing.storage}; ` +
        `want ${cfg.retention}/${cfg.storage} (these cannot change in place; delete the stream)`,
    );
  }
  const { name, retention: _r, storage: _s, ...update } = cfg;
  await jsm.streams.update(name, update);
}

async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  cfg: ConsumerConfig,
): Promise<void> {
  const durable = cfg.durable_name!;
  let exists = false;
  try {
    await jsm.consumers.info(stream, durable);
    exists = true;
  } catch (err) {
    if (!isNotFound(err, JetStreamApiCodes.ConsumerNotFound)) throw err;
  }
  if (!exists) {
    try {
      await jsm.consumers.add(stream, cfg);
      return;
    } catch (err) {
      if (!(err instanceof JetStreamApiError)) throw err;
    }
  }
  await jsm.consumers.update(stream, durable, {
    description: cfg.description,
    ack_wait: cfg.ack_wait,
    max_deliver: cfg.max_deliver,
    max_ack_pending: cfg.max_ack_pending,
  });
}
