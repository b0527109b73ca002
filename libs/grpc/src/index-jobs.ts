/**
 * What the gRPC IndexService needs from an indexing job runner. The local
 * implementation is `createLocalIndexJobs` in @codesift/pipeline, which
 * satisfies this structurally; declaring the port here keeps the transport
 * free of the pipeline's dependencies (tree-sitter, models, SQLite).
 */
export type IndexJobState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface IndexJobStatus {
  jobId: string;
  state: IndexJobState;
  root: string;
  /** 'queued' until it runs, then the pipeline phase (scan, plan, index, finish, done). */
  phase: string;
  /** Files that must be read this run (new or changed by size/mtime). */
  filesTotal: number;
  filesDone: number;
  /** Files written this run (new + changed); known when the job ends. */
  filesChanged: number;
  filesDeleted: number;
  chunks: number;
  symbols: number;
  failures: number;
  skipped: Record<string, number>;
  elapsedSeconds: number;
  error: string | null;
}

export interface StartIndexJobRequest {
  /** Directory to index; empty or absent for the runner's default root. */
  root?: string;
  rebuild?: boolean;
  vectors?: boolean;
}

export interface IndexJobs {
  start(request: StartIndexJobRequest): Promise<IndexJobStatus>;
  get(jobId: string): IndexJobStatus | undefined;
  /** The running job, else the newest queued or finished one. */
  latest(): IndexJobStatus | undefined;
  /** The job's current status, then every change, ending after a terminal state. */
  watch(jobId: string, options?: { signal?: AbortSignal }): AsyncIterable<IndexJobStatus>;
}
