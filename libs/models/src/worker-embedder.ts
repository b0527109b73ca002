import { Worker } from 'node:worker_threads';
import { CodesiftError, errorMessage, fromWire } from '@codesift/core';
import type { EmbedWorkerInit, FromEmbedWorker, ToEmbedWorker } from './embed-protocol.js';
import type { EmbedOptions } from './embedder.js';
import type { PoolMember } from './embedder-pool.js';

// Found from the package's entry module, not this module's URL: the CLI runs
// this code from its bundle (services/cli/dist/bundle/).
const WORKER_URL = new URL('./embed-worker.js', import.meta.resolve('@codesift/models'));
/**
 * The worker holds at most this many batches' worth of texts: one being
 * embedded and one ready behind it, so it never waits for the main thread
 * between batches. Later calls wait here, where an abort can still drop them.
 */
const OUTSTANDING_BATCHES = 2;
/** A worker that has not ended this long after close() is terminated. */
const CLOSE_GRACE_MS = 10_000;
const WORKER_HINT =
  'rebuild @codesift/models (npm run build), or set OLLAMA_HOST to embed with Ollama';

interface Request {
  id: number;
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(err: unknown): void;
}

/**
 * Starts the built-in model in a worker thread (embed-worker.ts) and returns
 * an Embedder that forwards batches to it. Load errors arrive as the
 * in-thread embedder's (MODEL_UNAVAILABLE with its hint).
 */
export function startWorkerEmbedder(
  name: string,
  dimensions: number,
  init: EmbedWorkerInit,
): Promise<PoolMember> {
  const worker = new Worker(WORKER_URL, {
    workerData: init,
    // The worker inherits the process's node flags (--cpu-prof, --inspect), but
    // --input-type, valid for a `node -e` script, makes loading a worker file fail.
    execArgv: process.execArgv.filter((a) => !a.startsWith('--input-type')),
  });
  return new Promise((resolve, reject) => {
    let embedder: WorkerEmbedder | undefined;
    worker.on('message', (m: FromEmbedWorker) => {
      if (m.type === 'ready') {
        embedder = new WorkerEmbedder(worker, name, dimensions, m.maxBatch);
        resolve(embedder);
      } else if (m.type === 'load-failed') {
        reject(fromWire(m.error));
      } else {
        embedder?.receive(m);
      }
    });
    worker.on('error', (err) => {
      const failure = new CodesiftError(
        'MODEL_UNAVAILABLE',
        `the embedding worker failed: ${errorMessage(err)}`,
        { hint: WORKER_HINT, cause: err },
      );
      if (embedder) embedder.fail(failure);
      else reject(failure);
    });
    worker.on('exit', (code) => {
      const failure = new CodesiftError(
        'MODEL_UNAVAILABLE',
        `the embedding worker exited (code ${code})`,
        { hint: WORKER_HINT },
      );
      if (embedder) embedder.exited(failure);
      // After load-failed or ready this is a no-op.
      else reject(failure);
    });
  });
}

class WorkerEmbedder implements PoolMember {
  /** One batch embedding and one ready behind it (OUTSTANDING_BATCHES). */
  readonly concurrency = OUTSTANDING_BATCHES;
  private nextId = 1;
  private readonly posted = new Map<number, Request>();
  private readonly waiting: Request[] = [];
  private outstandingTexts = 0;
  private failed: Error | undefined;
  private closing: Promise<void> | undefined;
  private onExit: (() => void) | undefined;
  private gone = false;

  constructor(
    private readonly worker: Worker,
    readonly name: string,
    readonly dimensions: number,
    readonly maxBatch: number,
  ) {
    this.updateRef();
  }

  get failure(): Error | undefined {
    return this.failed;
  }

  get load(): number {
    let texts = this.outstandingTexts;
    for (const r of this.waiting) texts += r.texts.length;
    return texts;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const signal = options.signal;
    signal?.throwIfAborted();
    if (this.closing) throw new CodesiftError('INTERNAL', 'embed() called after close()');
    if (this.failed) throw this.failed;
    if (texts.length === 0) return [];
    const vectors = await new Promise<Float32Array[]>((resolve, reject) => {
      const request: Request = { id: this.nextId++, texts, resolve, reject };
      if (signal) {
        // Only a call still waiting here can be dropped; a posted one runs to its end.
        const onAbort = () => {
          const at = this.waiting.indexOf(request);
          if (at >= 0) {
            this.waiting.splice(at, 1);
            this.updateRef();
            reject(signal.reason);
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
        request.resolve = (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        };
        request.reject = (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        };
      }
      this.waiting.push(request);
      this.pump();
    });
    signal?.throwIfAborted();
    return vectors;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /** Answers from the worker. */
  receive(m: Extract<FromEmbedWorker, { type: 'vectors' | 'embed-failed' }>): void {
    const request = this.posted.get(m.id);
    if (!request) return;
    this.posted.delete(m.id);
    this.outstandingTexts -= request.texts.length;
    if (m.type === 'vectors') request.resolve(m.vectors);
    else request.reject(fromWire(m.error));
    this.pump();
  }

  /** The worker crashed: every call in flight or waiting fails, and so does every later one. */
  fail(failure: Error): void {
    this.failed ??= failure;
    const lost = [...this.posted.values(), ...this.waiting.splice(0)];
    this.posted.clear();
    this.outstandingTexts = 0;
    for (const r of lost) r.reject(this.failed);
    this.updateRef();
  }

  exited(failure: Error): void {
    this.gone = true;
    if (!this.closing) this.fail(failure);
    // Anything still unanswered after a close is lost with the thread.
    else if (this.posted.size > 0) this.fail(failure);
    this.onExit?.();
  }

  private pump(): void {
    const limit = this.maxBatch * OUTSTANDING_BATCHES;
    while (this.waiting.length > 0 && !this.failed) {
      const next = this.waiting[0]!;
      // A call larger than the limit goes alone once the worker is empty.
      if (this.outstandingTexts > 0 && this.outstandingTexts + next.texts.length > limit) break;
      this.waiting.shift();
      this.send(next);
    }
    this.updateRef();
  }

  private send(request: Request): void {
    this.posted.set(request.id, request);
    this.outstandingTexts += request.texts.length;
    this.post({ type: 'embed', id: request.id, texts: request.texts });
  }

  private post(m: ToEmbedWorker): void {
    this.worker.postMessage(m);
  }

  /**
   * An idle worker does not keep the process alive (a caller that forgets
   * close() still exits); one with work, or closing, does.
   */
  private updateRef(): void {
    if (this.gone) return;
    if (this.posted.size > 0 || this.waiting.length > 0 || this.closing) this.worker.ref();
    else this.worker.unref();
  }

  private async shutDown(): Promise<void> {
    if (this.gone) return;
    // Calls already made are embedded before the worker closes, as the in-thread embedder does.
    for (const r of this.waiting.splice(0)) this.send(r);
    const exited = new Promise<void>((resolve) => {
      this.onExit = resolve;
    });
    // Kept alive until the thread has released the session and ended.
    this.worker.ref();
    this.post({ type: 'close' });
    const timer = setTimeout(() => void this.worker.terminate(), CLOSE_GRACE_MS);
    timer.unref();
    await exited;
    clearTimeout(timer);
  }
}
