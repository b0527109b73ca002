// An index job's progress, rebuilt from its JobEvents: the scanner's
// JOB_PLANNED says how many files (work + deletes) the job has, every file
// ends in one FILE_DONE or FILE_FAILED from the stage that finished it,
// reported alone or, for a whole batch, as one entry of a FILES event.
import { fromBinary } from '@bufbuild/protobuf';
import { EVENTS, followSubject, jobEventsSubject } from '@codesift/bus';
import { CodesiftError } from '@codesift/core';
import { FilesByLanguage } from '@codesift/pipeline';
import { type FileOutcome, type JobEvent, JobEvent_Kind, JobEventSchema } from '@codesift/proto';
import type { JetStreamClient } from '@nats-io/jetstream';

export interface JobProgress {
  jobId: string;
  /** Null until the scanner has published JOB_PLANNED. */
  filesTotal: number | null;
  filesDone: number;
  filesFailed: number;
  chunks: number;
  symbols: number;
  /** path -> reason, for the files that failed. */
  failures: Map<string, string>;
  /** Paths already counted: a redelivered message may report a file twice. */
  seen: Set<string>;
  /** Why the job as a whole failed (JOB_FAILED: e.g. its root could not be scanned); null otherwise. */
  jobFailed: string | null;
  /** Chunks written by context source (`llm`, `pattern`), as the writer reports them. */
  contextSources: Record<string, number>;
  /** Chunks whose pattern context stood in for the model, by reason. */
  contextFallbacks: Record<string, number>;
  /** Files that got line windows instead of syntax-tree chunks, by language (IndexSummary.noAst). */
  noAst: FilesByLanguage;
  /** Files chunked by the brace recognizer, by language (IndexSummary.structural). */
  structural: FilesByLanguage;
}

export function newJobProgress(jobId: string): JobProgress {
  return {
    jobId,
    filesTotal: null,
    filesDone: 0,
    filesFailed: 0,
    chunks: 0,
    symbols: 0,
    failures: new Map(),
    seen: new Set(),
    jobFailed: null,
    contextSources: {},
    contextFallbacks: {},
    noAst: new FilesByLanguage(),
    structural: new FilesByLanguage(),
  };
}

/** Folds one event into `p` (mutating it); returns p. Pure apart from that. */
export function applyJobEvent(p: JobProgress, e: JobEvent): JobProgress {
  switch (e.kind) {
    case JobEvent_Kind.JOB_PLANNED:
      p.filesTotal = Number(e.filesTotal);
      break;
    case JobEvent_Kind.JOB_FAILED:
      p.jobFailed ??= e.detail || 'the job failed';
      break;
    case JobEvent_Kind.FILE_DONE:
    case JobEvent_Kind.FILE_FAILED:
      applyFile(p, {
        ...e,
        contextSources: {},
        contextFallbacks: {},
        language: '',
        noAst: '',
        structural: '',
      });
      break;
    case JobEvent_Kind.FILES:
      // A batch's outcomes in one event (the writer commits a batch at once).
      for (const f of e.files) applyFile(p, f);
      break;
    default:
      break;
  }
  return p;
}

function applyFile(
  p: JobProgress,
  f: Pick<
    FileOutcome,
    | 'kind'
    | 'path'
    | 'chunks'
    | 'symbols'
    | 'detail'
    | 'contextSources'
    | 'contextFallbacks'
    | 'language'
    | 'noAst'
    | 'structural'
  >,
): void {
  const { kind, path, detail } = f;
  if (kind !== JobEvent_Kind.FILE_DONE && kind !== JobEvent_Kind.FILE_FAILED) return;
  // The first outcome of a file counts: a redelivered batch reports it again.
  if (p.seen.has(path)) return;
  p.seen.add(path);
  if (kind === JobEvent_Kind.FILE_DONE) {
    p.filesDone++;
    p.chunks += Number(f.chunks);
    p.symbols += Number(f.symbols);
    addCounts(p.contextSources, f.contextSources);
    addCounts(p.contextFallbacks, f.contextFallbacks);
    if (f.noAst) p.noAst.add(path, f.language, f.noAst);
    if (f.structural) p.structural.add(path, f.language, f.structural);
  } else {
    p.filesFailed++;
    p.failures.set(path, detail);
  }
}

function addCounts(into: Record<string, number>, counts: Record<string, bigint>): void {
  for (const [k, n] of Object.entries(counts)) into[k] = (into[k] ?? 0) + Number(n);
}

/** Every planned file is done or failed, or the job failed as a whole. */
export function isJobComplete(p: JobProgress): boolean {
  if (p.jobFailed !== null) return true;
  return p.filesTotal !== null && p.filesDone + p.filesFailed >= p.filesTotal;
}

export interface WatchJobOptions {
  signal?: AbortSignal;
  /** Called after every event with the progress so far. */
  onProgress?: (p: JobProgress) => void;
  /** Gives up (rejects) after this long; default no limit. */
  timeoutMs?: number;
}

/**
 * Replays the job's events from the start (the events stream keeps them),
 * then follows new ones until every planned file is done or failed. A job
 * that failed as a whole (JOB_FAILED) rejects with its reason.
 */
export async function watchJob(
  js: JetStreamClient,
  jobId: string,
  opts: WatchJobOptions = {},
): Promise<JobProgress> {
  const progress = newJobProgress(jobId);
  // Ends the watch: the caller's signal, or the timeout.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop.abort();
        }, opts.timeoutMs);
  try {
    const events = followSubject(js, EVENTS.stream, jobEventsSubject(jobId), {
      signal: stop.signal,
    });
    for await (const m of events) {
      applyJobEvent(progress, fromBinary(JobEventSchema, m.data));
      opts.onProgress?.(progress);
      if (isJobComplete(progress)) break;
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
  if (progress.jobFailed !== null) {
    throw new CodesiftError('INTERNAL', `index job ${jobId} failed: ${progress.jobFailed}`);
  }
  if (!isJobComplete(progress)) {
    const why = timedOut ? `timed out after ${opts.timeoutMs} ms` : 'watch stopped';
    throw new Error(
      `job ${jobId}: ${why} (${progress.filesDone + progress.filesFailed} of ${progress.filesTotal ?? '?'} files)`,
    );
  }
  return progress;
}
