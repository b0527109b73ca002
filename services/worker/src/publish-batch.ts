// How a stage passes a batch on: as few messages as fit under the payload
// limit, all published (and acknowledged by JetStream) before the handler
// resolves; a file too large for any message fails alone.
import {
  fitBatches,
  messageByteLimit,
  publish,
  type TraceContext,
  type WorkFile,
  type WorkQueue,
} from '@codesift/bus';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/** A stage's way out: where to publish and how to fail a file of the consumed batch. */
export interface BatchOutput<In extends WorkQueue> {
  js: JetStreamClient;
  nc: NatsConnection;
  /** The handler's context (run-stage's StageContext): its trace and per-file failure report. */
  ctx: {
    readonly trace: TraceContext;
    fileFailed(file: WorkFile<In>, reason: string): Promise<void>;
  };
  /** The consumed batch's files by path: what a dead letter for an output file carries. */
  inputs: ReadonlyMap<string, WorkFile<In>>;
}

/**
 * Publishes `files` of one job on `queue`, split by encoded size under the
 * connection's message limit. The split depends only on the files, so a
 * redelivered batch yields the same messages (and JetStream drops the
 * repeats by their ids).
 */
export async function publishFitted<In extends WorkQueue, Out extends WorkQueue>(
  out: BatchOutput<In>,
  queue: Out,
  jobId: string,
  files: WorkFile<Out>[],
): Promise<void> {
  const limit = messageByteLimit(out.nc.info?.max_payload);
  const { batches, tooLarge } = fitBatches(queue, jobId, files, limit);
  for (const { file, bytes } of tooLarge) {
    const input = out.inputs.get(file.path);
    const reason = `too large for one message on ${queue}: ${bytes} bytes encoded, limit ${limit} (3/4 of the NATS max_payload)`;
    // Without its input the file cannot be dead-lettered: fail the batch loudly instead.
    if (!input) throw new Error(`${file.path}: ${reason}`);
    await out.ctx.fileFailed(input, reason);
  }
  await Promise.all(batches.map((b) => publish(out.js, queue, b, { traceparent: out.ctx.trace })));
}

/** The files of a batch by path. */
export function byPath<F extends { path: string }>(files: readonly F[]): Map<string, F> {
  return new Map(files.map((f) => [f.path, f]));
}
