// How files are grouped into work messages: a batch holds up to a number of
// files and up to a number of bytes, and must stay well under the server's
// max_payload however much a stage adds to each file on the way (chunks,
// symbols, context, and above all vectors: 512 floats are 2 KiB per chunk).
import {
  createWork,
  createWorkFile,
  encodedFileSize,
  encodeWork,
  type WorkFile,
  type WorkMessage,
  type WorkMessageInit,
} from './codec.js';
import type { WorkQueue } from './subjects.js';

/** nats-server's default max_payload (1 MiB). */
export const NATS_DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** Limits of one batch as the scanner packs it. */
export interface BatchLimits {
  /** Most files in one message. */
  maxFiles: number;
  /** Most bytes of file content in one message (a larger single file travels alone). */
  maxBytes: number;
}

/**
 * Defaults measured with the cluster benchmark (docs/BENCHMARKS.md): every
 * message costs about 2 ms of CPU across nats-server and the stages
 * (publish ack, delivery, ack, one writer transaction, one progress event),
 * so 64 files per message take ~10 % less CPU than 32 for keyword-only
 * indexing, while batches stay small enough for embedder replicas to share a
 * job evenly (1,500 files are 24 batches). 256 KiB of content leaves room
 * under a 1 MiB payload for what the chunker adds; the embedder splits its
 * output when vectors make it larger (fitBatches).
 */
export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxFiles: 64, maxBytes: 256 * 1024 };

/**
 * The most bytes one work message may have on this connection: three
 * quarters of the server's max_payload, leaving room for headers and for
 * the protocol, so a message never fails for being a little too large.
 */
export function messageByteLimit(maxPayload: number | undefined): number {
  const payload = maxPayload && maxPayload > 0 ? maxPayload : NATS_DEFAULT_MAX_PAYLOAD;
  return Math.floor(payload * 0.75);
}

/**
 * Groups items in order, closing a group when it reaches `maxFiles` items or
 * adding the next item would pass `maxBytes`. An item larger than `maxBytes`
 * on its own becomes a group of one. For producers that publish as they go:
 * add() hands back a group once the next item does not fit in it.
 */
export class BatchPacker<T> {
  private items: T[] = [];
  private bytes = 0;

  constructor(private readonly limits: BatchLimits) {
    if (!(limits.maxFiles >= 1) || !(limits.maxBytes >= 1)) {
      throw new Error(`bus: batch limits must be >= 1 (${JSON.stringify(limits)})`);
    }
  }

  /**
   * Adds an item of `bytes`; returns the group it closed, if any: the items
   * before it, when it would not fit among them.
   */
  add(item: T, bytes: number): T[] | undefined {
    const full =
      this.items.length > 0 &&
      (this.items.length >= this.limits.maxFiles || this.bytes + bytes > this.limits.maxBytes);
    const closed = full ? this.take() : undefined;
    this.items.push(item);
    this.bytes += bytes;
    return closed;
  }

  /** Whatever is left, as a last group (undefined when empty). */
  flush(): T[] | undefined {
    return this.items.length > 0 ? this.take() : undefined;
  }

  get pending(): number {
    return this.items.length;
  }

  private take(): T[] {
    const out = this.items;
    this.items = [];
    this.bytes = 0;
    return out;
  }
}

/** Packs `items` by the limits at once (see BatchPacker). */
export function packBatches<T>(
  items: Iterable<T>,
  sizeOf: (item: T) => number,
  limits: BatchLimits,
): T[][] {
  const packer = new BatchPacker<T>(limits);
  const out: T[][] = [];
  for (const item of items) {
    const group = packer.add(item, sizeOf(item));
    if (group) out.push(group);
  }
  const last = packer.flush();
  if (last) out.push(last);
  return out;
}

export interface FittedBatches<Q extends WorkQueue> {
  /** Messages of at most maxBytes each, files in their original order. */
  batches: WorkMessage<Q>[];
  /** Files too large for a message even alone: no retry can send them. */
  tooLarge: { file: WorkFile<Q>; bytes: number }[];
}

/**
 * Builds `queue`'s message(s) for one job's files, each at most `maxBytes`
 * encoded. The common case, everything fits, costs one encoding (which the
 * publisher then reuses); only an oversized batch is measured file by file
 * and split. The split depends only on the files, so a redelivered batch
 * splits the same way and its parts keep their message ids.
 */
export function fitBatches<Q extends WorkQueue>(
  queue: Q,
  jobId: string,
  files: readonly WorkFile<Q>[],
  maxBytes: number,
): FittedBatches<Q> {
  const make = (group: readonly WorkFile<Q>[]) =>
    createWork(queue, { jobId, files: group } as unknown as WorkMessageInit<Q>);
  if (files.length === 0) return { batches: [], tooLarge: [] };
  const whole = make(files);
  if (encodeWork(queue, whole).length <= maxBytes) return { batches: [whole], tooLarge: [] };

  // The job id field and its framing: a few bytes more than the id itself.
  const overhead = Buffer.byteLength(jobId) + 8;
  const budget = maxBytes - overhead;
  const sized = files.map((file) => withoutTextIfOver(queue, file, budget));
  const tooLarge = sized.filter((s) => s.bytes > budget);
  const fitting = sized.filter((s) => s.bytes <= budget);
  const groups = packBatches(fitting, (s) => s.bytes, {
    maxFiles: Number.MAX_SAFE_INTEGER,
    maxBytes: budget,
  });
  return { batches: groups.map((g) => make(g.map((s) => s.file))), tooLarge };
}

/**
 * A file over `budget` that carries its text (FileChunks.text) travels
 * without it rather than fail: the chunks are the index, the text only lets
 * the cluster's query service serve snippets without the checkout.
 */
function withoutTextIfOver<Q extends WorkQueue>(
  queue: Q,
  file: WorkFile<Q>,
  budget: number,
): { file: WorkFile<Q>; bytes: number } {
  const bytes = encodedFileSize(queue, file);
  if (bytes <= budget || (file as { text?: string }).text === undefined) return { file, bytes };
  const slim = createWorkFile(queue, { ...file, text: undefined } as never);
  return { file: slim, bytes: encodedFileSize(queue, slim) };
}

/** A batch of one file: what a dead letter for that file carries, so it can be replayed. */
export function singleFileBatch<Q extends WorkQueue>(
  queue: Q,
  jobId: string,
  file: WorkFile<Q>,
): WorkMessage<Q> {
  return createWork(queue, {
    jobId,
    files: [createWorkFile(queue, file as never)],
  } as unknown as WorkMessageInit<Q>);
}
