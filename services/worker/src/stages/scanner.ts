// scanner: index-job requests on `jobs` -> a scan of the named directory on
// this process's disk (e.g. a volume of checkouts), published as FileWork and
// FileDeleted by submitIndexJob, planned against the writer's manifest,
// which comes over NATS (the manifest service): the scanner needs no access
// to the index.
//
// A job whose root cannot be scanned (missing, not a directory, outside
// the scan roots) fails at once with a JOB_FAILED event the watcher
// sees; anything else (NATS, the writer not answering) is retried, and the
// last attempt's error fails the job the same way.
import { publishJobEvent } from '@codesift/bus';
import { fetchManifest, submitIndexJob } from '@codesift/cluster-services';
import {
  checkRepositoryName,
  checkScanRoot,
  errorMessage,
  isCodesiftError,
  scanRootsFromEnv,
} from '@codesift/core';
import { JobEvent_Kind } from '@codesift/proto';
import type { StageDefinition } from '@codesift/service-kit';

/** Errors of the request itself (or the writer refusing it): no retry can fix them. */
const PERMANENT = new Set([
  'ENOENT_ROOT',
  'NOT_A_DIRECTORY',
  'PATH_OUTSIDE_ROOT',
  'PERMISSION_DENIED',
  'INVALID_ARGUMENT',
]);

/**
 * The job's directory on this disk: a directory under one of the scan roots
 * (CODESIFT_SCAN_ROOTS, else CODESIFT_SCAN_ROOT, else the scanner's working
 * directory). Relative paths resolve against the first; `..` and symlinks
 * are resolved first, so neither leads out. The real path is what is
 * scanned. Checked here as well as by the query service: anything that can
 * publish on NATS can queue a job.
 */
export function resolveJobRoot(requested: string, scanRoots: readonly string[]): string {
  return checkScanRoot(requested, scanRoots).root;
}

export const scannerStage: StageDefinition = {
  name: 'scanner',
  async init({ js, nc, env, log }) {
    const scanRoots = scanRootsFromEnv(env, process.cwd());
    log.info('scanner ready', { scanRoots });
    const failJob = (jobId: string, detail: string) =>
      publishJobEvent(
        js,
        { jobId, stage: 'scanner', kind: JobEvent_Kind.JOB_FAILED, detail },
        { msgId: `${jobId}:job-failed` },
      );
    return {
      bindings: [
        {
          queue: 'jobs',
          // A scan holds a whole tree's plan in memory: a few at a time.
          maxInFlight: 2,
          async handler(request, ctx) {
            for (const job of request.files) {
              const repository = job.repository === '' ? undefined : job.repository;
              try {
                if (repository !== undefined) checkRepositoryName(repository);
                const root = resolveJobRoot(job.path, scanRoots);
                const submitted = await submitIndexJob(
                  js,
                  root,
                  // Fetched after the scan: the writer may have moved on meanwhile.
                  () =>
                    fetchManifest(nc, {
                      root,
                      ...(repository === undefined ? {} : { repository }),
                      waitForServiceMs: 30_000,
                    }),
                  {
                    jobId: request.jobId,
                    ...(repository === undefined ? {} : { repository }),
                    rebuild: job.rebuild,
                    // Batches sized to what this server accepts.
                    maxPayload: nc.info?.max_payload,
                  },
                );
                log.info('index job planned', {
                  job: request.jobId,
                  root,
                  repository: repository ?? null,
                  scanned: submitted.filesScanned,
                  sent: submitted.filesSent,
                  deleted: submitted.filesDeleted,
                  unchanged: submitted.filesUnchanged,
                  skipped: submitted.skipped,
                  secretsRedacted: submitted.secretsRedacted,
                });
              } catch (err) {
                // No retry changes a bad root or repository name, nor the writer
                // refusing the job (a repository into an index of one tree, or the
                // reverse): the job fails at once.
                if (isCodesiftError(err) && PERMANENT.has(err.code)) {
                  log.warn('index job refused', { job: request.jobId, error: err.message });
                  await failJob(request.jobId, err.message);
                  continue;
                }
                // The last attempt: the watcher must hear that the job ended.
                if (ctx.deliveries >= ctx.maxAttempts) {
                  await failJob(request.jobId, `scan failed: ${errorMessage(err)}`).catch(
                    () => undefined,
                  );
                }
                throw err;
              }
            }
          },
        },
      ],
    };
  },
};
