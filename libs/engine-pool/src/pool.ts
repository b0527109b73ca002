/**
 * A SearchEngine whose searches run on worker threads.
 *
 * A Node server answers on one thread, and one search is mostly synchronous
 * CPU (SQLite FTS5 scoring, the model, fusion), so one `codesift serve`
 * tops out at one core however many clients wait: measured at ~290 q/s
 * keyword-only with the second core idle. The pool gives each worker its own
 * engine (opened by the same factory) and sends every search to the worker
 * with the fewest in flight. Everything else (status, symbols, snippets:
 * cheap reads) stays on the given primary engine.
 *
 * A crashed worker fails only its own searches and is replaced on the next
 * search; a worker that cannot even open its engine fails the pool's start.
 *
 * Why not piscina or tinypool: aborting a task that is running there
 * terminates its thread, and here a cancelled gRPC call or a passed deadline
 * only aborts that search, while the worker keeps its open index and loaded
 * model (re-opening them takes seconds). Nor do they let a worker close its
 * engine before the thread ends, or fail the start when an engine cannot
 * open. Kept as written: with those added back the code would not be smaller.
 */
import { Worker } from 'node:worker_threads';
import { CodesiftError, errorMessage, fromWire } from '@codesift/core';
import type { SearchEngine, SearchRequest, SearchResponse } from '@codesift/search';
import { telemetryForThreads, traceparentFromContext } from '@codesift/telemetry';
import type { EngineFactory, FromWorker, ToWorker, WorkerInit } from './protocol.js';

export interface EnginePoolOptions {
  /** Opens each worker's engine. */
  factory: EngineFactory;
  /** Worker threads; at least 1. */
  threads: number;
  /** Answers everything except search, and stays the caller's to close. */
  primary: SearchEngine;
}

interface Pending {
  resolve: (r: SearchResponse) => void;
  reject: (e: unknown) => void;
}

// Beside the package's entry module, found by the package's name rather than
// this module's own URL: the CLI runs this code from its bundle
// (services/cli/dist/bundle/), where './worker.js' would not exist.
const WORKER_URL = new URL('./worker.js', import.meta.resolve('@codesift/engine-pool'));

class SearchWorker {
  readonly pending = new Map<number, Pending>();
  /** Searches answered (either way), for stats. */
  served = 0;
  private idleWaiters: (() => void)[] = [];
  private exited = false;
  private closedSignal: (() => void) | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly onExit: (w: SearchWorker) => void,
  ) {}

  /** Starts a worker and waits until its engine is open. */
  static start(factory: EngineFactory, onExit: (w: SearchWorker) => void): Promise<SearchWorker> {
    const telemetry = telemetryForThreads();
    const init: WorkerInit = telemetry ? { factory, telemetry } : { factory };
    const worker = new Worker(WORKER_URL, { workerData: init });
    const self = new SearchWorker(worker, onExit);
    return new Promise<SearchWorker>((resolve, reject) => {
      let started = false;
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          started = true;
          resolve(self);
        } else if (m.type === 'open-failed') {
          reject(fromWire(m.error));
        } else {
          self.receive(m);
        }
      });
      worker.on('error', (err) => {
        if (!started) reject(err);
        self.fail(`search worker crashed: ${errorMessage(err)}`);
      });
      worker.on('exit', (code) => {
        self.exited = true;
        if (!started)
          reject(new Error(`search worker exited with code ${code} before it was ready`));
        self.fail(`search worker exited (code ${code})`);
        self.closedSignal?.();
        self.onExit(self);
      });
    });
  }

  get load(): number {
    return this.pending.size;
  }

  get alive(): boolean {
    return !this.exited;
  }

  post(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  private receive(m: FromWorker): void {
    if (m.type === 'result' || m.type === 'failed') {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.settle(m.id);
      if (m.type === 'result') p.resolve(m.response);
      else p.reject(fromWire(m.error));
    }
  }

  private settle(id: number): void {
    this.pending.delete(id);
    this.served++;
    if (this.pending.size === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves once no search is in flight on this worker. */
  idle(): Promise<void> {
    if (this.pending.size === 0 || this.exited) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private fail(message: string): void {
    const lost = [...this.pending];
    for (const [id] of lost) this.settle(id);
    for (const [, p] of lost) p.reject(new CodesiftError('INTERNAL', message));
  }

  /** Closes the worker's engine, then the thread; a stuck worker is terminated after `graceMs`. */
  async close(graceMs: number): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => {
      this.closedSignal = resolve;
    });
    this.post({ type: 'close' });
    const timer = setTimeout(() => void this.worker.terminate(), graceMs);
    await exited;
    clearTimeout(timer);
  }
}

export interface EnginePool extends SearchEngine {
  /** Searches each live worker has answered, in start order. */
  stats(): { threads: number; served: number[] };
}

/** Opens `threads` workers (in parallel) and returns the pooled engine. */
export async function openEnginePool(options: EnginePoolOptions): Promise<EnginePool> {
  const threads = Math.floor(options.threads);
  if (!(threads >= 1)) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `search threads must be at least 1, not ${options.threads}`,
    );
  }
  const workers: SearchWorker[] = [];
  let closing = false;
  const onExit = (w: SearchWorker) => {
    const i = workers.indexOf(w);
    if (i >= 0) workers.splice(i, 1);
  };
  const started = await Promise.allSettled(
    Array.from({ length: threads }, () => SearchWorker.start(options.factory, onExit)),
  );
  for (const s of started) if (s.status === 'fulfilled') workers.push(s.value);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(workers.map((w) => w.close(1000)));
    throw failed.reason;
  }

  let nextId = 1;
  let replacing: Promise<void> | undefined;
  let rotate = 0;

  /** Brings the pool back to size after a crash; the replacement is awaited only if no worker is left. */
  const refill = (): Promise<void> => {
    replacing ??= (async () => {
      try {
        while (!closing && workers.length < threads) {
          workers.push(await SearchWorker.start(options.factory, onExit));
        }
      } finally {
        replacing = undefined;
      }
    })();
    return replacing;
  };

  const pick = async (): Promise<SearchWorker> => {
    if (workers.length < threads) {
      const refilled = refill();
      if (workers.length === 0) await refilled;
    }
    let best: SearchWorker | undefined;
    // Fewest searches in flight; ties rotate so idle workers share the work.
    for (let k = 0; k < workers.length; k++) {
      const w = workers[(rotate + k) % workers.length] as SearchWorker;
      if (w.alive && (!best || w.load < best.load)) best = w;
    }
    rotate++;
    if (!best) throw new CodesiftError('INTERNAL', 'no search worker is running');
    return best;
  };

  const search = async (request: SearchRequest): Promise<SearchResponse> => {
    if (closing) throw new CodesiftError('INTERNAL', 'the search engine is closed');
    const { signal, ...wire } = request;
    signal?.throwIfAborted();
    const worker = await pick();
    const id = nextId++;
    return new Promise<SearchResponse>((resolve, reject) => {
      const onAbort = () => worker.post({ type: 'cancel', id });
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      worker.pending.set(id, {
        resolve: (r) => {
          done();
          resolve(r);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      const trace = traceparentFromContext();
      worker.post({ type: 'search', id, request: wire, ...(trace ? { trace } : {}) });
    });
  };

  const primary = options.primary;
  return {
    search,
    stats: () => ({ threads, served: workers.map((w) => w.served) }),
    lookupSymbol: (name, opts) => primary.lookupSymbol(name, opts),
    vocabulary: (opts) => primary.vocabulary(opts),
    status: () => primary.status(),
    getSnippet: (p, start, end) => primary.getSnippet(p, start, end),
    async close() {
      if (closing) return;
      closing = true;
      await replacing?.catch(() => undefined);
      // Searches in flight finish first: the worker closes its engine only after them.
      await Promise.all(
        workers.map(async (w) => {
          await w.idle();
          await w.close(5000);
        }),
      );
    },
  };
}
