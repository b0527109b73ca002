/**
 * The index-job port: what a surface (gRPC IndexService, MCP index_status)
 * needs of whatever runs index jobs — the local runner in @codesift/pipeline
 * or the cluster's scanner service (@codesift/cluster-services). Defined here
 * once so that neither surface depends on a runner, and both runners share
 * one status shape; a runner may add fields of its own.
 */
export type IndexJobState = 'queued' | 'running' | 'succeeded' | 'failed';

/** A snapshot of one index job; each watch update is a fresh copy. */
export interface IndexJobStatus {
  jobId: string;
  state: IndexJobState;
  root: string;
  /** 'queued' until the job runs, then the runner's phase (e.g. scan, index, done, failed). */
  phase: string;
  /** Files that must be processed this run (new, changed, deleted). */
  filesTotal: number;
  /** Files of `filesTotal` handled so far, failed ones included. */
  filesDone: number;
  /** Files written this run (new + changed); known when the job ends. */
  filesChanged: number;
  filesDeleted: number;
  chunks: number;
  symbols: number;
  failures: number;
  /** Skipped files by reason, when the runner knows them. */
  skipped: Record<string, number>;
  elapsedSeconds: number;
  error: string | null;
}

export interface StartIndexJobRequest {
  /** Directory to index; absent or empty for the runner's default root. */
  root?: string;
  /** Index everything again, ignoring what is already indexed; default false. */
  rebuild?: boolean;
  /** Embed chunks; default true. A runner whose embedder is fixed may refuse false. */
  vectors?: boolean;
  /**
   * The repository the tree is, in an index of many (see repositories.ts);
   * a runner whose index holds one tree (local mode) refuses it.
   */
  repository?: string;
  /**
   * Only these root-relative files changed (a watch knows): a runner that
   * can may look at them alone instead of scanning the whole tree. Local
   * runners only; others scan the tree.
   */
  paths?: string[];
}

export interface IndexJobs<S extends IndexJobStatus = IndexJobStatus> {
  /** Queues a job and returns its first status; rejects bad requests (and BUSY when full). */
  start(request: StartIndexJobRequest): Promise<S>;
  /** A runner that shares jobs with others (cluster replicas) may have to look further: async. */
  get(jobId: string): S | undefined | Promise<S | undefined>;
  /**
   * The running job, else the newest queued or finished one; a runner shared
   * by replicas (the cluster's) answers the newest job of any of them: async.
   */
  latest(): S | undefined | Promise<S | undefined>;
  /** The job's current status, then every change, ending after a terminal state. */
  watch(jobId: string, options?: { signal?: AbortSignal }): AsyncIterable<S>;
}

/** A job that has just been queued: nothing done yet. */
export function queuedJobStatus(jobId: string, root: string): IndexJobStatus {
  return {
    jobId,
    state: 'queued',
    root,
    phase: 'queued',
    filesTotal: 0,
    filesDone: 0,
    filesChanged: 0,
    filesDeleted: 0,
    chunks: 0,
    symbols: 0,
    failures: 0,
    skipped: {},
    elapsedSeconds: 0,
    error: null,
  };
}
