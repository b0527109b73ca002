// What a stage handler returns for one batch, and how runStage stores it:
// the handler only transforms (and writes its own store), runStage
// publishes, all before the batch is acked.
import {
  fitBatches,
  messageByteLimit,
  publish,
  publishJobEvent,
  type TraceContext,
  type WorkFile,
  type WorkMessage,
  type WorkQueue,
  workMessageId,
} from '@codesift/bus';
import { JobEvent_Kind } from '@codesift/proto';
import type { JetStreamClient } from '@nats-io/jetstream';

/** Files a stage passes on to one queue, for the consumed batch's job. */
export type StageOutput = {
  [Q in WorkQueue]: { queue: Q; files: WorkFile<Q>[] };
}[WorkQueue];

/** One file of the consumed batch that no retry can fix (bad input), and why. */
export interface FailedFile<Q extends WorkQueue> {
  file: WorkFile<Q>;
  reason: string;
}

/** A file this stage finished for the job (the pipeline's last stage reports these). */
export interface DoneFile {
  path: string;
  chunks?: number;
  symbols?: number;
  detail?: string;
  /** The file's chunks by context source, and by fallback reason (see FileOutcome). */
  contextSources?: Record<string, number>;
  contextFallbacks?: Record<string, number>;
  /** The file's language, and the chunker's notes on how it was chunked (see FileChunks). */
  language?: string;
  noAst?: string;
  structural?: string;
}

/**
 * What a handler made of one batch. runStage stores it in this order:
 * the failures (each a dead letter of its own and FILE_FAILED), then the
 * outputs (each list split into messages under the payload limit; a file
 * too large for any message fails alone), then one FILES event with the
 * done files. The batch is acked only after all of it is stored.
 */
export interface StageResult<Q extends WorkQueue = WorkQueue> {
  failed?: FailedFile<Q>[];
  out?: StageOutput[];
  done?: DoneFile[];
}

/** Where a result goes: the consumed batch, and how its files fail. */
export interface ResultTarget<Q extends WorkQueue> {
  js: JetStreamClient;
  /** The NATS server's max_payload, when known. */
  maxPayload: number | undefined;
  stage: string;
  queue: Q;
  batch: WorkMessage<Q>;
  trace: TraceContext;
  fileFailed(file: WorkFile<Q>, reason: string): Promise<void>;
}

/**
 * Stores `result`; resolves with how many of its messages JetStream already
 * held (a redelivered batch publishing again: dropped by message id).
 */
export async function storeResult<Q extends WorkQueue>(
  target: ResultTarget<Q>,
  result: StageResult<Q>,
): Promise<{ duplicates: number }> {
  for (const { file, reason } of result.failed ?? []) await target.fileFailed(file, reason);
  const inputs = new Map(
    (target.batch as unknown as { files: WorkFile<Q>[] }).files.map((f) => [f.path, f]),
  );
  const jobId = (target.batch as unknown as { jobId: string }).jobId;
  const published = await Promise.all(
    (result.out ?? []).map((o) => publishFitted(target, inputs, o.queue, jobId, o.files)),
  );
  let duplicates = published.reduce((a, n) => a + n, 0);
  const done = result.done ?? [];
  if (done.length === 0) return { duplicates };
  const ack = await publishJobEvent(
    target.js,
    {
      jobId,
      stage: target.stage,
      kind: JobEvent_Kind.FILES,
      files: done.map((d) => ({
        path: d.path,
        kind: JobEvent_Kind.FILE_DONE,
        ...(d.chunks === undefined ? {} : { chunks: BigInt(d.chunks) }),
        ...(d.symbols === undefined ? {} : { symbols: BigInt(d.symbols) }),
        ...(d.detail === undefined ? {} : { detail: d.detail }),
        ...(d.contextSources === undefined ? {} : { contextSources: bigints(d.contextSources) }),
        ...(d.contextFallbacks === undefined
          ? {}
          : { contextFallbacks: bigints(d.contextFallbacks) }),
        ...(d.language === undefined ? {} : { language: d.language }),
        ...(d.noAst === undefined ? {} : { noAst: d.noAst }),
        ...(d.structural === undefined ? {} : { structural: d.structural }),
      })),
    },
    { traceparent: target.trace, msgId: `${workMessageId(target.queue, target.batch)}:done` },
  );
  if (ack.duplicate) duplicates++;
  return { duplicates };
}

/**
 * Publishes `files` of one job on `queue`, split by encoded size under the
 * connection's message limit. The split depends only on the files, so a
 * redelivered batch yields the same messages (and JetStream drops the
 * repeats by their ids).
 */
async function publishFitted<In extends WorkQueue, Out extends WorkQueue>(
  target: ResultTarget<In>,
  inputs: ReadonlyMap<string, WorkFile<In>>,
  queue: Out,
  jobId: string,
  files: WorkFile<Out>[],
): Promise<number> {
  const limit = messageByteLimit(target.maxPayload);
  const { batches, tooLarge } = fitBatches(queue, jobId, files, limit);
  for (const { file, bytes } of tooLarge) {
    const input = inputs.get(file.path);
    const reason = `too large for one message on ${queue}: ${bytes} bytes encoded, limit ${limit} (3/4 of the NATS max_payload)`;
    // Without its input the file cannot be dead-lettered: fail the batch loudly instead.
    if (!input) throw new Error(`${file.path}: ${reason}`);
    await target.fileFailed(input, reason);
  }
  const acks = await Promise.all(
    batches.map((b) => publish(target.js, queue, b, { traceparent: target.trace })),
  );
  return acks.filter((a) => a.duplicate).length;
}

/** Counts as protobuf's uint64 map values. */
function bigints(counts: Record<string, number>): Record<string, bigint> {
  return Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, BigInt(n)]));
}
