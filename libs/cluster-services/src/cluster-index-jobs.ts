// Index jobs run by the cluster, for the gRPC IndexService (the IndexJobs
// port of @codesift/grpc, satisfied structurally): `start` puts a request
// on the `jobs` work queue for the scanner service and answers at once with
// the queued job; the job's status is then rebuilt from its events on the
// bus (applyJobEvent), for `get`, `latest` and the `watch` stream. The
// events stream keeps every job's events (a JOB_QUEUED one first), so a
// query replica can also answer for a job another replica started.
import { randomUUID } from 'node:crypto';
import { fromBinary } from '@bufbuild/protobuf';
import {
  announceJob,
  EVENTS,
  followSubject,
  jobEventsSubject,
  latestJobId,
  publish,
  publishJobEvent,
} from '@codesift/bus';
import {
  CodesiftError,
  checkRepositoryName,
  errorMessage,
  type IndexJobStatus,
  type IndexJobs,
  queuedJobStatus,
} from '@codesift/core';
import { JobEvent_Kind, JobEventSchema } from '@codesift/proto';
import type { JetStreamClient } from '@nats-io/jetstream';
import { applyJobEvent, isJobComplete, type JobProgress, newJobProgress } from './job-progress.js';

/** The core status: the cluster knows no more than the job's events say. */
export type ClusterJobStatus = IndexJobStatus;

export interface ClusterIndexJobsOptions {
  js: JetStreamClient;
  /** Jobs remembered for get/latest; the oldest finished ones are forgotten first. Default 100. */
  keep?: number;
  /** Told when following a job's events fails (the job's status stays where it was). */
  onError?: (err: unknown, jobId: string) => void;
}

/**
 * Start takes a directory on the scanner's disk (absolute, or relative to
 * its first scan root; empty: that scan root itself), which the scanner
 * refuses unless it lies under a scan root; the cluster's
 * embedder decides about vectors, so `vectors: false` is refused.
 */
export interface ClusterIndexJobs extends IndexJobs {
  /** A job this replica follows, or one found in the events stream (started elsewhere). */
  get(jobId: string): Promise<ClusterJobStatus | undefined>;
  /** The newest job any replica started (from the events stream). */
  latest(): Promise<ClusterJobStatus | undefined>;
  /** Stops following every job. */
  close(): Promise<void>;
}

interface Tracked {
  status: ClusterJobStatus;
  progress: JobProgress;
  startedAt: number;
  finishedAt: number | null;
  /** Bumped on every change; watchers compare it. */
  version: number;
  wake: Set<() => void>;
  stop: () => void;
  signal: AbortSignal;
  /** For a job adopted from the stream: the last event's sequence, and who waits for it. */
  caughtUpTo?: number;
  onCaughtUp?: () => void;
}

/** Job ids are UUIDs; anything else cannot name a subject safely. */
const JOB_ID = /^[0-9a-f-]{8,64}$/i;

const TERMINAL = new Set<IndexJobStatus['state']>(['succeeded', 'failed']);

export function createClusterIndexJobs(opts: ClusterIndexJobsOptions): ClusterIndexJobs {
  const { js } = opts;
  const keep = opts.keep ?? 100;
  const jobs = new Map<string, Tracked>();
  let newest: string | undefined;
  let closed = false;

  const snapshot = (t: Tracked): ClusterJobStatus => ({
    ...t.status,
    skipped: { ...t.status.skipped },
    elapsedSeconds: ((t.finishedAt ?? Date.now()) - t.startedAt) / 1000,
  });

  const changed = (t: Tracked) => {
    t.version++;
    for (const w of t.wake) w();
    t.wake.clear();
  };

  const forgetOld = () => {
    if (jobs.size <= keep) return;
    for (const [id, t] of jobs) {
      if (jobs.size <= keep) break;
      if (TERMINAL.has(t.status.state) && id !== newest) jobs.delete(id);
    }
  };

  const apply = (t: Tracked, data: Uint8Array): boolean => {
    const e = fromBinary(JobEventSchema, data);
    const s = t.status;
    if (e.kind === JobEvent_Kind.JOB_QUEUED) {
      try {
        const detail = JSON.parse(e.detail) as { root?: string; requestedAtMs?: number };
        if (detail.root) s.root = detail.root;
        if (typeof detail.requestedAtMs === 'number') t.startedAt = detail.requestedAtMs;
      } catch {
        // Detail is informational only.
      }
      return false;
    }
    if (s.state === 'queued') {
      s.state = 'running';
      s.phase = 'index';
    }
    if (e.kind === JobEvent_Kind.JOB_FAILED) {
      s.state = 'failed';
      s.phase = 'failed';
      s.error = e.detail || 'the job failed';
      t.finishedAt = Date.now();
      return true;
    }
    if (e.kind === JobEvent_Kind.JOB_PLANNED) {
      try {
        const detail = JSON.parse(e.detail) as { root?: string; deleted?: number };
        if (detail.root) s.root = detail.root;
        if (typeof detail.deleted === 'number') s.filesDeleted = detail.deleted;
      } catch {
        // An older scanner without the detail: counts stay as they are.
      }
    }
    const p = applyJobEvent(t.progress, e);
    s.filesTotal = p.filesTotal ?? 0;
    s.filesDone = p.filesDone + p.filesFailed;
    s.failures = p.filesFailed;
    s.chunks = p.chunks;
    s.symbols = p.symbols;
    if (isJobComplete(p)) {
      s.state = 'succeeded';
      s.phase = 'done';
      s.filesChanged = Math.max(0, p.filesDone - s.filesDeleted);
      t.finishedAt = Date.now();
      return true;
    }
    return false;
  };

  /** Follows the job's events (replayed from its first) until it ends or is stopped. */
  const follow = async (t: Tracked, signal: AbortSignal) => {
    // Survives a restarted nats-server (see followSubject).
    for await (const m of followSubject(js, EVENTS.stream, jobEventsSubject(t.status.jobId), {
      signal,
    })) {
      const done = apply(t, m.data);
      changed(t);
      if (t.caughtUpTo !== undefined && m.seq >= t.caughtUpTo) {
        t.caughtUpTo = undefined;
        t.onCaughtUp?.();
      }
      if (done) break;
    }
  };

  /** A new tracked job, not yet followed. */
  const track = (jobId: string, root: string, startedAt: number): Tracked => {
    const abort = new AbortController();
    return {
      status: queuedJobStatus(jobId, root),
      progress: newJobProgress(jobId),
      startedAt,
      finishedAt: null,
      version: 0,
      wake: new Set(),
      stop: () => abort.abort(),
      signal: abort.signal,
    };
  };

  /** Remembers `t` and follows its events until it ends. */
  const start = (t: Tracked): Promise<void> => {
    const jobId = t.status.jobId;
    jobs.set(jobId, t);
    forgetOld();
    return follow(t, t.signal).catch((err) => {
      if (t.signal.aborted) return;
      opts.onError?.(err, jobId);
      if (!TERMINAL.has(t.status.state)) {
        t.status.state = 'failed';
        t.status.phase = 'failed';
        t.status.error = `lost the job's progress: ${errorMessage(err)}`;
        t.finishedAt = Date.now();
        changed(t);
      }
    });
  };

  /**
   * A job another replica started: found by its events (the stream keeps
   * them), followed from its first, and answered once the events so far
   * are applied. Undefined when the stream has none for that id.
   */
  const adopt = async (jobId: string): Promise<Tracked | undefined> => {
    if (closed || !JOB_ID.test(jobId)) return undefined;
    const jsm = await js.jetstreamManager();
    const last = await jsm.streams
      .getMessage(EVENTS.stream, { last_by_subj: jobEventsSubject(jobId) })
      .catch(() => null);
    if (!last) return undefined;
    const existing = jobs.get(jobId);
    if (existing) return existing;
    const t = track(jobId, '', Date.now());
    t.caughtUpTo = last.seq;
    const caughtUp = new Promise<void>((resolve) => {
      t.onCaughtUp = resolve;
    });
    void start(t);
    // The replay is quick; a stalled one still answers with what it has.
    await Promise.race([caughtUp, new Promise((r) => setTimeout(r, 2000))]);
    return t;
  };

  return {
    async start(request) {
      if (closed) throw new CodesiftError('INTERNAL', 'index jobs are closed');
      if (request.vectors === false) {
        throw new CodesiftError(
          'INVALID_ARGUMENT',
          "a cluster job cannot turn vectors off: the embedder service's CODESIFT_EMBEDDER decides",
          { hint: 'run the embedder with CODESIFT_EMBEDDER=none for a keyword-only index' },
        );
      }
      const repository = request.repository || undefined;
      // Refused here, before the job is queued: the caller hears why at once.
      if (repository !== undefined) checkRepositoryName(repository);
      const jobId = randomUUID();
      const root = request.root?.trim() || '.';
      const t = track(jobId, root, Date.now());
      // First in the job's events, so any replica can find it while it waits for a
      // scanner; announced once more for every replica's latest().
      const queued = {
        jobId,
        stage: 'query',
        kind: JobEvent_Kind.JOB_QUEUED,
        detail: JSON.stringify({
          root,
          ...(repository === undefined ? {} : { repository }),
          rebuild: request.rebuild === true,
          requestedAtMs: t.startedAt,
        }),
      };
      await publishJobEvent(js, queued, { msgId: `${jobId}:queued` });
      await announceJob(js, queued, { msgId: `${jobId}:announced` });
      await publish(js, 'jobs', {
        jobId,
        files: [{ path: root, rebuild: request.rebuild === true, repository: repository ?? '' }],
        requestedAtMs: t.startedAt,
      });
      newest = jobId;
      void start(t);
      return snapshot(t);
    },

    async get(jobId) {
      const t = jobs.get(jobId) ?? (await adopt(jobId));
      return t ? snapshot(t) : undefined;
    },

    async latest() {
      // The newest job of any replica (the one a load balancer sent the start to
      // need not be this one); this replica's own newest if the stream cannot say.
      const id = await latestJobId(js).catch(() => undefined);
      const t = id ? (jobs.get(id) ?? (await adopt(id))) : undefined;
      const own = newest ? jobs.get(newest) : undefined;
      const found = t ?? own;
      return found ? snapshot(found) : undefined;
    },

    async *watch(jobId, options = {}) {
      const t = jobs.get(jobId) ?? (await adopt(jobId));
      if (!t) throw new CodesiftError('INVALID_ARGUMENT', `no index job with id '${jobId}'`);
      const signal = options.signal;
      let seen = -1;
      for (;;) {
        if (t.version !== seen) {
          seen = t.version;
          const s = snapshot(t);
          yield s;
          if (TERMINAL.has(s.state)) return;
          // Changes while the caller handled the snapshot: the next one is due now.
          if (t.version !== seen) continue;
        }
        if (signal?.aborted || closed) return;
        await new Promise<void>((resolve) => {
          const done = () => {
            signal?.removeEventListener('abort', done);
            t.wake.delete(done);
            resolve();
          };
          t.wake.add(done);
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    },

    async close() {
      closed = true;
      for (const t of jobs.values()) {
        t.stop();
        changed(t);
      }
    },
  };
}
