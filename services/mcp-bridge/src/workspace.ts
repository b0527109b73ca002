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
  /**
   * Keeps the index fresh once it exists (the CLI passes @codesift/pipeline
   * watchIndex): called with a `reindex` that runs one incremental job
   * through this workspace's queue, so it never races index_codebase, and
   * resolves once searches see it: for the changed `files` alone, or the
   * whole tree when null. Stopped by clear() and close().
   */
  watch?: (reindex: (files: string[] | null) => Promise<IndexJobStatus>) => Promise<WorkspaceWatch>;
}

/** A running watch over the workspace's root. */
export interface WorkspaceWatch {
  close(): Promise<void>;
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
  /** Whether a watch keeps the index fresh now (see LocalWorkspaceOptions.watch). */
  watching(): boolean;
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
  /**
   * Opens the index anew and swaps the engine (searches in flight finish on
   * the old one): another process replaced the file (a rebuild).
   */
  reopen(): Promise<void>;
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
  /** The embedder the index recorded when `real` was opened: its query embedder follows it. */
  let realEmbedder: string | null = null;
  const openReal = async () => {
    const opened = closeNotifying(await options.open());
    return { ...opened, embedder: (await opened.engine.status()).embedder };
  };
  const useReal = (next: Awaited<ReturnType<typeof openReal>>) => {
    real = next;
    realEmbedder = next.embedder;
  };
  const first = existsSync(indexPath) ? await openReal() : null;
  if (first) useReal(first);
  const slot = swappableEngine(first?.engine ?? missing, (err) =>
    log(`closing a retired engine failed: ${errorMessage(err)}`),
  );
  /** Per job: resolves once the job ended and the engine was reopened (or not). */
  const settled = new Map<string, Promise<void>>();
  let starting: Promise<unknown> = Promise.resolve();

  const settle = async (jobId: string, rebuild: boolean): Promise<void> => {
    let last: IndexJobStatus | undefined;
    for await (const s of jobs.watch(jobId)) last = s;
    if (last?.state !== 'succeeded') {
      log(`index job failed: ${last?.error ?? 'unknown error'}`);
      return;
    }
    try {
      // An open engine reads other connections' commits as they land (the
      // stores check the data version), so an incremental job needs no new
      // one; a first index, a rebuild or a change of embedder do.
      if (real && !rebuild && (await real.engine.status()).embedder === realEmbedder) {
        void startWatch();
        return;
      }
      const next = await openReal();
      if (await slot.swap(next.engine)) useReal(next);
    } catch (err) {
      log(`could not open the new index: ${errorMessage(err)}`);
    }
    // Not awaited: index_codebase answers without waiting for the watch to walk the tree.
    void startWatch();
  };

  let watch: WorkspaceWatch | null = null;
  let watchStarting: Promise<void> | null = null;
  let closing = false;
  const startIndex = (request: { rebuild?: boolean; paths?: string[] } = {}) => {
    // One start at a time: two calls arriving together must not both see no job.
    const attempt = starting.then(async () => {
      const running = await active();
      if (running) return { job: running, started: false };
      const rebuild = request.rebuild ?? false;
      const job = await jobs.start({
        rebuild,
        vectors: options.vectors,
        ...(request.paths ? { paths: request.paths } : {}),
      });
      settled.set(job.jobId, settle(job.jobId, rebuild));
      return { job, started: true };
    });
    starting = attempt.catch(() => {});
    return attempt;
  };
  /** One incremental job for the watch; a job already under way is waited for, then one more runs. */
  const reindexForWatch = async (files: string[] | null): Promise<IndexJobStatus> => {
    for (;;) {
      const { job, started } = await startIndex(files ? { paths: files } : {});
      let last: IndexJobStatus | undefined;
      for await (const s of jobs.watch(job.jobId)) last = s;
      await settled.get(job.jobId);
      if (!started) continue;
      if (last?.state !== 'succeeded') throw new Error(last?.error ?? 'the index job failed');
      return last;
    }
  };
  const startWatch = async (): Promise<void> => {
    if (!options.watch || watch || watchStarting || closing || real === null) return;
    watchStarting = options
      .watch(reindexForWatch)
      .then((w) => {
        watch = w;
      })
      .catch((err) => log(`could not start watching ${root}: ${errorMessage(err)}`))
      .finally(() => {
        watchStarting = null;
      });
    await watchStarting;
  };
  const stopWatch = async (): Promise<void> => {
    await watchStarting;
    const w = watch;
    watch = null;
    await w?.close();
  };
  // Not awaited: walking a large tree must not hold up the server's handshake.
  void startWatch();

  return {
    root,
    indexPath,
    embedder: options.embedder,
    engine: slot.engine,
    hasIndex: () => real !== null,
    watching: () => watch !== null,
    latestJob: async () => jobs.latest(),
    startIndex,
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
    async reopen() {
      if (real === null || closing) return;
      try {
        const next = await openReal();
        if (await slot.swap(next.engine)) useReal(next);
      } catch (err) {
        log(`could not open the replaced index: ${errorMessage(err)}`);
      }
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
      // A watch would rebuild what was just cleared at the next saved file.
      await stopWatch();
      const old = real;
      real = null;
      await slot.swap(missing);
      // SQLite must let go of the files before they are deleted under it.
      await old?.closed;
      return removeIndexFiles(indexPath);
    },
    async close() {
      closing = true;
      const watchStopped = stopWatch();
      // A job still running is cancelled (the watch's too, which ends its
      // run): the next run picks up where it stopped.
      await jobs.close?.();
      await watchStopped;
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
