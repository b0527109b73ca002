import { create } from '@bufbuild/protobuf';
import { checkScanRoot } from '@codesift/core';
import {
  type IndexProgress,
  IndexProgressSchema,
  type IndexService,
  JobState,
} from '@codesift/proto';
import type { SearchEngine } from '@codesift/search';
import { indexStatusToProto, protoCount } from '@codesift/wire';
import { status } from '@grpc/grpc-js';
import { GrpcStatusError } from './errors.js';
import type { ServiceHandlers } from './implement.js';
import type { IndexJobStatus, IndexJobs } from './index-jobs.js';

const STATE: Record<IndexJobStatus['state'], JobState> = {
  queued: JobState.QUEUED,
  running: JobState.RUNNING,
  succeeded: JobState.SUCCEEDED,
  failed: JobState.FAILED,
};

export function jobStatusToProto(s: IndexJobStatus): IndexProgress {
  return create(IndexProgressSchema, {
    jobId: s.jobId,
    state: STATE[s.state],
    phase: s.phase,
    filesTotal: protoCount(s.filesTotal),
    filesDone: protoCount(s.filesDone),
    filesChanged: protoCount(s.filesChanged),
    filesDeleted: protoCount(s.filesDeleted),
    chunks: protoCount(s.chunks),
    symbols: protoCount(s.symbols),
    failures: protoCount(s.failures),
    skipped: Object.entries(s.skipped)
      .filter(([, n]) => n > 0)
      .map(([reason, n]) => ({ reason, count: protoCount(n) })),
    elapsedSeconds: s.elapsedSeconds,
    error: s.error ?? '',
  });
}

/**
 * Which directories StartIndex may name. A root outside every scan root
 * (after `..` and, where it exists on this disk, symlinks are resolved) is
 * refused with PERMISSION_DENIED before any job is queued.
 */
export interface IndexRootPolicy {
  scanRoots: readonly string[];
  /** What an empty root means here, checked like a named one; absent: the runner's own default. */
  defaultRoot?: string;
  /**
   * A root that does not exist on this disk passes on to the runner (the
   * cluster's scanner has the checkouts and checks again there); by default
   * it is refused.
   */
  mayBeElsewhere?: boolean;
}

/**
 * IndexService over an IndexJobs runner. Without one (a read-only server)
 * StartIndex answers UNIMPLEMENTED, and the status of the index as a whole
 * still works. An empty job id in WatchIndexProgress means the latest job.
 */
export function indexHandlers(
  engine: SearchEngine,
  jobs: IndexJobs | undefined,
  roots: IndexRootPolicy | undefined,
): ServiceHandlers<typeof IndexService.method> {
  /** The root to hand the runner; throws PERMISSION_DENIED for one outside the scan roots. */
  const admitRoot = (requested: string): string | undefined => {
    const root = requested || roots?.defaultRoot;
    if (root === undefined) return undefined;
    return checkScanRoot(root, roots?.scanRoots ?? [], {
      mayBeElsewhere: roots?.mayBeElsewhere ?? false,
    }).root;
  };
  const requireJobs = (): IndexJobs => {
    if (!jobs) {
      throw new GrpcStatusError(
        status.UNIMPLEMENTED,
        'this server was started without indexing support; run codesift index on the server',
      );
    }
    return jobs;
  };
  const findJob = async (jobId: string): Promise<IndexJobStatus> => {
    const job = jobId ? await requireJobs().get(jobId) : await requireJobs().latest();
    if (!job) {
      throw new GrpcStatusError(
        status.NOT_FOUND,
        jobId ? `no index job with id '${jobId}'` : 'no index job has been started',
      );
    }
    return job;
  };
  return {
    async startIndex(req) {
      const runner = requireJobs();
      const root = admitRoot(req.root);
      const job = await runner.start({
        ...(root ? { root } : {}),
        rebuild: req.rebuild,
        vectors: !req.noVectors,
        ...(req.repository ? { repository: req.repository } : {}),
      });
      return { jobId: job.jobId };
    },
    async getIndexStatus(req) {
      const job = req.jobId ? await findJob(req.jobId) : await jobs?.latest();
      // A job's status is still worth answering while the index it builds cannot be opened yet.
      const info = req.jobId ? await engine.status().catch(() => null) : await engine.status();
      if (!info) return { job: jobStatusToProto(job!) };
      return { ...indexStatusToProto(info), ...(job ? { job: jobStatusToProto(job) } : {}) };
    },
    async *watchIndexProgress(req, ctx) {
      const job = await findJob(req.jobId);
      for await (const s of requireJobs().watch(job.jobId, { signal: ctx.signal })) {
        yield { progress: jobStatusToProto(s) };
      }
    },
  };
}
