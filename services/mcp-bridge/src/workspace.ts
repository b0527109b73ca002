import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError, errorMessage, type IndexJobStatus, type IndexJobs } from '@codesift/core';
import { type SearchEngine, swappableEngine } from '@codesift/search';
import { closeNotifying, missingIndexEngine } from './missing-index.js';

export interface LocalWorkspaceOptions {
  /** The directory index jobs index. */
  root: string;
  /** The index file jobs write and searches read (it need not exist yet). */
  indexPath: string;
  /** Opens a search engine over `indexPath`, which exists. */
  open: () => Promise<SearchEngine>;
  /** Runs the index jobs (one at a time) for `root` into `indexPath`; close() closes it. */
  jobs: IndexJobs & { close?(): Promise<void> };
  /** Whether jobs embed chunks. */
  vectors: boolean;
  /** The embedding model jobs use (null: keyword only), shown before an index exists. */
  embedder: string | null;
  log?: (line: string) => void;
}

/**
 * The local index of one directory as the MCP tools see it: an engine that
 * answers "no index yet, call index_codebase" until there is one, index jobs
 * whose end swaps in an engine over the new index, and clearing. It lets
 * `codesift mcp` start (and finish its handshake) in a directory never
 * indexed, and an agent build, refresh and drop the index from the session.
 */
export interface LocalWorkspace {
  readonly root: string;
  readonly indexPath: string;
  /** The model a job embeds with; null when jobs build keyword-only indexes. */
  readonly embedder: string | null;
  /** Searches the current index; stays the same object across reindexing and clearing. */
  readonly engine: SearchEngine;
  hasIndex(): boolean;
  /** The running or queued job, else the last finished one; undefined before the first. */
  latestJob(): Promise<IndexJobStatus | undefined>;
  /**
   * Starts a job unless one is queued or running; `started` says which, and
   * `job` is the new job or the one already under way.
   */
  startIndex(options?: { rebuild?: boolean }): Promise<{ job: IndexJobStatus; started: boolean }>;
  /**
   * Calls `onStatus` with each change of the job and resolves with its final
   * status once it ended and searches use what it wrote.
   */
  follow(
    jobId: string,
    onStatus?: (s: IndexJobStatus) => void,
    signal?: AbortSignal,
  ): Promise<IndexJobStatus>;
  /** Deletes the index files (returns those removed); refused (BUSY) while a job runs. */
  clear(): Promise<string[]>;
  /** Cancels a running job and closes the engine. */
  close(): Promise<void>;
}

export async function openLocalWorkspace(options: LocalWorkspaceOptions): Promise<LocalWorkspace> {
  const { root, indexPath, jobs } = options;
  const log = options.log ?? (() => {});
  const active = async () => {
    const job = await jobs.latest();
    return job && (job.state === 'queued' || job.state === 'running') ? job : undefined;
  };
  const missing = missingIndexEngine(root, active);
  // The engine over the index, with a promise for its close: clearing waits
  // for it before deleting the files it reads.
  let real: ReturnType<typeof closeNotifying> | null = null;
  const openReal = async () => closeNotifying(await options.open());
  if (existsSync(indexPath)) real = await openReal();
  const slot = swappableEngine(real?.engine ?? missing, (err) =>
    log(`closing a retired engine failed: ${errorMessage(err)}`),
  );
  /** Per job: resolves once the job ended and the engine was reopened (or not). */
  const settled = new Map<string, Promise<void>>();
  let starting: Promise<unknown> = Promise.resolve();

  const settle = async (jobId: string): Promise<void> => {
    let last: IndexJobStatus | undefined;
    for await (const s of jobs.watch(jobId)) last = s;
    if (last?.state !== 'succeeded') {
      log(`index job failed: ${last?.error ?? 'unknown error'}`);
      return;
    }
    try {
      // A first index, a rebuild or new vectors all need a fresh engine.
      const next = await openReal();
      if (await slot.swap(next.engine)) real = next;
    } catch (err) {
      log(`could not open the new index: ${errorMessage(err)}`);
    }
  };

  return {
    root,
    indexPath,
    embedder: options.embedder,
    engine: slot.engine,
    hasIndex: () => real !== null,
    latestJob: async () => jobs.latest(),
    startIndex(request = {}) {
      // One start at a time: two calls arriving together must not both see no job.
      const attempt = starting.then(async () => {
        const running = await active();
        if (running) return { job: running, started: false };
        const job = await jobs.start({
          rebuild: request.rebuild ?? false,
          vectors: options.vectors,
        });
        settled.set(job.jobId, settle(job.jobId));
        return { job, started: true };
      });
      starting = attempt.catch(() => {});
      return attempt;
    },
    async follow(jobId, onStatus, signal) {
      let last: IndexJobStatus | undefined;
      for await (const s of jobs.watch(jobId, signal ? { signal } : {})) {
        last = s;
        onStatus?.(s);
      }
      // A caller that gave up does not wait for the engine swap either.
      if (!signal?.aborted) await settled.get(jobId);
      if (!last) throw new CodesiftError('INVALID_ARGUMENT', `no index job with id '${jobId}'`);
      return last;
    },
    async clear() {
      const running = await active();
      if (running) {
        throw new CodesiftError(
          'BUSY',
          'an index job is running; the index cannot be cleared now',
          {
            hint: 'wait until index_status shows the job finished, then call clear_index again',
          },
        );
      }
      const old = real;
      real = null;
      await slot.swap(missing);
      // SQLite must let go of the files before they are deleted under it.
      await old?.closed;
      return removeIndexFiles(indexPath);
    },
    async close() {
      // A job still running is cancelled: the next run picks up where it stopped.
      await jobs.close?.();
      await slot.engine.close();
    },
  };
}

/** Deletes the index database and its WAL files, and the index directory if that leaves it empty. */
function removeIndexFiles(indexPath: string): string[] {
  const removed: string[] = [];
  for (const suffix of ['', '-wal', '-shm']) {
    const file = indexPath + suffix;
    if (!existsSync(file)) continue;
    rmSync(file, { force: true });
    removed.push(file);
  }
  const dir = path.dirname(indexPath);
  if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
  return removed;
}
