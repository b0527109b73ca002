// An index job's progress, rebuilt from its JobEvents: the scanner's
// JOB_PLANNED says how many files (work + deletes) the job has, every file
// ends in one FILE_DONE or FILE_FAILED from the stage that finished it.
import { fromBinary } from '@bufbuild/protobuf';
import { EVENTS, jobEventsSubject } from '@codesift/bus';
import { type JobEvent, JobEvent_Kind, JobEventSchema } from '@codesift/proto';
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
  };
}

/** Folds one event into `p` (mutating it); returns p. Pure apart from that. */
export function applyJobEvent(p: JobProgress, e: JobEvent): JobProgress {
  switch (e.kind) {
    case JobEvent_Kind.JOB_PLANNED:
      p.filesTotal = Number(e.filesTotal);
      break;
    case JobEvent_Kind.FILE_DONE:
      if (p.seen.has(e.path)) break;
      p.seen.add(e.path);
      p.filesDone++;
      p.chunks += Number(e.chunks);
      p.symbols += Number(e.symbols);
      break;
    case JobEvent_Kind.FILE_FAILED:
      if (p.seen.has(e.path)) break;
      p.seen.add(e.path);
      p.filesFailed++;
      p.failures.set(e.path, e.detail);
      break;
    default:
      break;
  }
  return p;
}

export function isJobComplete(p: JobProgress): boolean {
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
 * then follows new ones until every planned file is done or failed.
 */
export async function watchJob(
  js: JetStreamClient,
  jobId: string,
  opts: WatchJobOptions = {},
): Promise<JobProgress> {
  const progress = newJobProgress(jobId);
  const consumer = await js.consumers.get(EVENTS.stream, {
    // One subject as a string: nats-server 2.9 (Debian) rejects the array form.
    filter_subjects: jobEventsSubject(jobId),
  });
  const messages = await consumer.consume();
  const stop = () => void messages.close();
  opts.signal?.addEventListener('abort', stop, { once: true });
  let timedOut = false;
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop();
        }, opts.timeoutMs);
  try {
    for await (const m of messages) {
      applyJobEvent(progress, fromBinary(JobEventSchema, m.data));
      opts.onProgress?.(progress);
      if (isJobComplete(progress)) break;
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', stop);
    await messages.close();
  }
  if (!isJobComplete(progress)) {
    const why = timedOut ? `timed out after ${opts.timeoutMs} ms` : 'watch stopped';
    throw new Error(
      `job ${jobId}: ${why} (${progress.filesDone + progress.filesFailed} of ${progress.filesTotal ?? '?'} files)`,
    );
  }
  return progress;
}
