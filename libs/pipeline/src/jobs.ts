import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Chunker, createChunker } from '@codesift/chunking';
import {
  CodesiftError,
  type IndexJobStatus as CoreIndexJobStatus,
  type IndexJobs as CoreIndexJobs,
  errorMessage,
  type IndexJobState,
  queuedJobStatus,
  type StartIndexJobRequest,
} from '@codesift/core';
import type { Embedder } from '@codesift/models';
import { defaultIndexPath, type IndexOptions, indexRepository } from './local-runner.js';
import type { IndexPhase, IndexProgress, IndexSummary } from './progress.js';
import { warmChunker } from './warm-chunker.js';

export type { IndexJobState, StartIndexJobRequest };

/** A snapshot of one local index job (the core status plus what the local runner knows). */
export interface IndexJobStatus extends CoreIndexJobStatus {
  indexPath: string;
  rebuild: boolean;
  vectors: boolean;
  /** 'queued' until the job runs, then the pipeline phase. */
  phase: IndexPhase | 'queued';
  filesScanned: number;
  /** Epoch ms. */
  queuedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  summary: IndexSummary | null;
}

/**
 * Runs index jobs one at a time and reports their progress. Jobs write to
 * one SQLite index and the pipeline is CPU-bound, so running two at once
 * would only contend; a second start while one runs is queued (FIFO).
 * Slow watchers skip intermediate snapshots, never the final one.
 */
export interface IndexJobs extends CoreIndexJobs<IndexJobStatus> {
  /** Every job lives in this process: known at once. */
  get(jobId: string): IndexJobStatus | undefined;
  latest(): IndexJobStatus | undefined;
  /** Known jobs, oldest first. */
  list(): IndexJobStatus[];
  /** Fails queued jobs, cancels the running one and waits for it; later starts are refused. */
  close(): Promise<void>;
}

export interface LocalIndexJobsOptions {
  /** The index every job writes; default `<root>/.codesift/index.db` of the job's root. */
  indexPath?: string;
  /**
   * The directory jobs index. When set, requests may only name this
   * directory (a server must not be told to index arbitrary paths); when
   * absent, every request must name its root.
   */
  root?: string;
  /** Makes the embedder for a job with vectors; the runner closes it after the job. */
  embedderFactory?: () => Promise<Embedder>;
  /**
   * Keep the embedder open this long after a job, for the next one; default
   * 0 (closed at once). A watch re-indexes every few seconds while someone
   * edits, and loading the built-in model takes seconds each time.
   */
  keepEmbedderMs?: number;
  maxFileBytes?: number;
  extraIgnore?: string[];
  /** Jobs waiting at most; default 8. */
  maxQueued?: number;
  /** Finished jobs remembered for status queries; default 20. */
  keepFinished?: number;
  /** Called after each job ends (succeeded or failed), e.g. to reopen a search engine. */
  onFinished?: (status: IndexJobStatus) => void;
  /** The indexing function; tests substitute their own. */
  indexer?: (options: IndexOptions) => Promise<IndexSummary>;
}

interface Job {
  status: IndexJobStatus;
  /** Bumped on every change, so a watcher knows whether it has seen the newest snapshot. */
  version: number;
  /** The files a narrowed job looks at (IndexOptions.only); absent for a whole-tree job. */
  paths?: string[];
  wakers: Set<() => void>;
}

/**
 * IndexJobs over the local pipeline (indexRepository in this process).
 *
 * A start identical to a job that is still queued (same root, rebuild and
 * vectors) returns that job instead of queueing a duplicate: both callers
 * want the same run.
 */
/** Local jobs can also get their chunker ready before the first job (see warm-chunker.ts). */
export interface LocalIndexJobs extends IndexJobs {
  /**
   * Makes the jobs' chunker now and warms it for the languages of the index
   * (needs the `root` and `indexPath` options; else nothing to warm).
   * Resolves with the languages warmed; never rejects.
   */
  warm(): Promise<string[]>;
}

export function createLocalIndexJobs(options: LocalIndexJobsOptions = {}): LocalIndexJobs {
  const indexer = options.indexer ?? indexRepository;
  const maxQueued = options.maxQueued ?? 8;
  const keepFinished = options.keepFinished ?? 20;
  const defaultRoot = options.root ? path.resolve(options.root) : undefined;
  const jobs = new Map<string, Job>();
  const queue: Job[] = [];
  let running: { job: Job; controller: AbortController; done: Promise<void> } | null = null;
  let closed = false;
  const embedders = keptEmbedder(options.embedderFactory, options.keepEmbedderMs ?? 0);
  // Made once: loading the grammars costs more than re-indexing one saved file.
  let chunker: Promise<Chunker> | undefined;

  const changed = (job: Job) => {
    job.version++;
    for (const wake of job.wakers) wake();
    job.wakers.clear();
  };

  const forgetOldJobs = () => {
    const finished = [...jobs.values()].filter((j) => j.status.finishedAt !== null);
    for (const j of finished.slice(0, Math.max(0, finished.length - keepFinished))) {
      jobs.delete(j.status.jobId);
    }
  };

  const resolveRoot = (requested: string | undefined): string => {
    const root = requested ? path.resolve(defaultRoot ?? process.cwd(), requested) : defaultRoot;
    if (!root) {
      throw new CodesiftError('INVALID_ARGUMENT', 'no root given for the index job', {
        hint: 'name the directory to index',
      });
    }
    // The same directory by another path (a symlink to it, the gRPC layer's
    // real path) is this root; any other directory is refused.
    if (defaultRoot && root !== defaultRoot && realOrSelf(root) !== realOrSelf(defaultRoot)) {
      throw new CodesiftError('PATH_OUTSIDE_ROOT', `this server only indexes ${defaultRoot}`, {
        hint: 'leave root empty, or start a server for the other directory',
      });
    }
    const target = defaultRoot ?? root;
    if (!existsSync(target)) {
      throw new CodesiftError('ENOENT_ROOT', `directory not found: ${target}`);
    }
    if (!statSync(target).isDirectory()) {
      throw new CodesiftError('NOT_A_DIRECTORY', `not a directory: ${target}`);
    }
    return target;
  };

  const run = async (job: Job, signal: AbortSignal) => {
    const s = job.status;
    s.state = 'running';
    s.startedAt = Date.now();
    changed(job);
    let embedder: Embedder | undefined;
    try {
      if (s.vectors) embedder = await embedders.acquire();
      chunker ??= createChunker();
      const summary = await indexer({
        root: s.root,
        indexPath: s.indexPath,
        vectors: s.vectors,
        embedder,
        chunker: await chunker,
        rebuild: s.rebuild,
        ...(job.paths ? { only: job.paths } : {}),
        maxFileBytes: options.maxFileBytes,
        extraIgnore: options.extraIgnore,
        signal,
        onProgress: (p) => {
          applyProgress(s, p);
          changed(job);
        },
      });
      applySummary(s, summary);
      s.state = 'succeeded';
    } catch (err) {
      s.state = 'failed';
      s.error = errorMessage(err);
    } finally {
      if (embedder) await embedders.release(embedder);
    }
    s.finishedAt = Date.now();
    s.elapsedSeconds = (s.finishedAt - (s.startedAt ?? s.finishedAt)) / 1000;
    if (s.state === 'succeeded') s.phase = 'done';
    changed(job);
    try {
      options.onFinished?.(snapshot(s));
    } catch {
      // A failing observer must not stop the queue.
    }
  };

  const pump = () => {
    if (running || closed) return;
    const job = queue.shift();
    if (!job) return;
    const controller = new AbortController();
    const done = run(job, controller.signal).finally(() => {
      running = null;
      forgetOldJobs();
      pump();
    });
    running = { job, controller, done };
  };

  const get = (jobId: string) => {
    const job = jobs.get(jobId);
    return job ? snapshot(job.status) : undefined;
  };

  return {
    async warm() {
      if (!defaultRoot || !options.indexPath) return [];
      try {
        chunker ??= createChunker();
        return await warmChunker(await chunker, defaultRoot, options.indexPath);
      } catch {
        // The first job reports a chunker that cannot be made.
        return [];
      }
    },
    async start(request) {
      if (closed) throw new CodesiftError('INTERNAL', 'the index job runner is shutting down');
      if (request.repository) {
        throw new CodesiftError(
          'INVALID_ARGUMENT',
          'a local index holds one tree: repositories are for cluster indexes',
          { hint: 'start the job without a repository, or index through the cluster' },
        );
      }
      const root = resolveRoot(request.root);
      const rebuild = request.rebuild ?? false;
      const vectors = request.vectors ?? true;
      if (vectors && !options.embedderFactory) {
        throw new CodesiftError('INVALID_ARGUMENT', 'this runner has no embedding model', {
          hint: 'start the job without vectors',
        });
      }
      const paths = request.paths;
      // A job for named files is never merged: its twin would not cover them.
      const twin = paths
        ? undefined
        : queue.find(
            (j) =>
              !j.paths &&
              j.status.root === root &&
              j.status.rebuild === rebuild &&
              j.status.vectors === vectors,
          );
      if (twin) return snapshot(twin.status);
      if (queue.length >= maxQueued) {
        throw new CodesiftError('BUSY', `${queue.length} index jobs are already waiting`, {
          hint: 'wait for the running job to finish and try again',
        });
      }
      const job: Job = {
        status: newStatus(root, options.indexPath ?? defaultIndexPath(root), rebuild, vectors),
        version: 0,
        wakers: new Set(),
        ...(paths ? { paths: [...paths] } : {}),
      };
      jobs.set(job.status.jobId, job);
      queue.push(job);
      const first = snapshot(job.status);
      pump();
      return first;
    },
    get,
    latest() {
      if (running) return snapshot(running.job.status);
      const all = [...jobs.values()];
      const last = all[all.length - 1];
      return last ? snapshot(last.status) : undefined;
    },
    list: () => [...jobs.values()].map((j) => snapshot(j.status)),
    async *watch(jobId, watchOptions = {}) {
      const job = jobs.get(jobId);
      if (!job) throw new CodesiftError('INVALID_ARGUMENT', `no index job with id '${jobId}'`);
      const signal = watchOptions.signal;
      let seen = -1;
      while (!signal?.aborted) {
        if (job.version !== seen) {
          seen = job.version;
          const s = snapshot(job.status);
          yield s;
          if (s.state === 'succeeded' || s.state === 'failed') return;
          continue;
        }
        await new Promise<void>((resolve) => {
          const wake = () => {
            signal?.removeEventListener('abort', wake);
            job.wakers.delete(wake);
            resolve();
          };
          job.wakers.add(wake);
          signal?.addEventListener('abort', wake, { once: true });
        });
      }
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) {
        job.status.state = 'failed';
        job.status.error = 'cancelled: the job runner was closed before the job started';
        job.status.finishedAt = Date.now();
        changed(job);
      }
      if (running) {
        running.controller.abort();
        await running.done;
      }
      await embedders.close();
    },
  };
}

/** Embedders from `factory`, the last one kept open `keepMs` after its job for the next. */
function keptEmbedder(factory: (() => Promise<Embedder>) | undefined, keepMs: number) {
  let kept: { embedder: Embedder; timer: NodeJS.Timeout } | null = null;
  let closed = false;
  const dispose = (e: Embedder) => e.close().catch(() => {});
  return {
    async acquire(): Promise<Embedder> {
      if (kept) {
        clearTimeout(kept.timer);
        const { embedder } = kept;
        kept = null;
        return embedder;
      }
      return factory!();
    },
    async release(embedder: Embedder): Promise<void> {
      if (keepMs <= 0 || closed) return dispose(embedder);
      const timer = setTimeout(() => {
        if (kept?.embedder === embedder) kept = null;
        void dispose(embedder);
      }, keepMs);
      // A kept model must not hold the process open.
      timer.unref();
      kept = { embedder, timer };
    },
    async close(): Promise<void> {
      closed = true;
      if (!kept) return;
      clearTimeout(kept.timer);
      const { embedder } = kept;
      kept = null;
      await dispose(embedder);
    },
  };
}

function newStatus(
  root: string,
  indexPath: string,
  rebuild: boolean,
  vectors: boolean,
): IndexJobStatus {
  return {
    ...queuedJobStatus(randomUUID(), root),
    phase: 'queued',
    indexPath: path.resolve(indexPath),
    rebuild,
    vectors,
    filesScanned: 0,
    queuedAt: Date.now(),
    startedAt: null,
    finishedAt: null,
    summary: null,
  };
}

function applyProgress(s: IndexJobStatus, p: IndexProgress): void {
  s.phase = p.phase;
  s.filesScanned = p.filesScanned;
  s.filesTotal = p.filesToProcess;
  s.filesDone = p.filesProcessed;
  s.chunks = p.chunks;
  s.elapsedSeconds = p.elapsedSeconds;
}

function applySummary(s: IndexJobStatus, summary: IndexSummary): void {
  s.summary = summary;
  s.filesScanned = summary.filesScanned;
  s.filesDone = s.filesTotal;
  s.filesChanged = summary.filesIndexed;
  s.filesDeleted = summary.filesDeleted;
  s.chunks = summary.chunks;
  s.symbols = summary.symbols;
  s.failures = summary.filesFailed;
  s.skipped = Object.fromEntries(
    Object.entries(summary.skipped).filter((e): e is [string, number] => (e[1] ?? 0) > 0),
  );
}

function snapshot(s: IndexJobStatus): IndexJobStatus {
  return { ...s, skipped: { ...s.skipped } };
}

/** The real path of `p`, or `p` itself when it cannot be resolved (it does not exist). */
function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
