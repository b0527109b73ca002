// `codesift index --remote <nats-url>`: the scanner runs here, planning
// against the writer's manifest (fetched over NATS, so this machine needs
// no access to the cluster's index), the stages do the work, and the job's
// events drive the same progress view and summary as local mode; the
// totals come from the writer too.
import path from 'node:path';
import { ensureStreams, natsAuthFromEnv } from '@codesift/bus';
import {
  fetchIndexStats,
  fetchManifest,
  type JobProgress,
  type SubmittedJob,
  submitIndexJob,
  watchJob,
} from '@codesift/cluster-services';
import { CodesiftError, errorMessage } from '@codesift/core';
import type { IndexProgress, IndexSummary, SecretPolicy } from '@codesift/pipeline';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ProgressView } from '../ui/progress-view.js';

export interface RemoteIndexOptions {
  natsUrl: string;
  root: string;
  /** The cluster's index file when it is on this disk: left out of the scan. */
  indexPath?: string;
  rebuild: boolean;
  /** The repository the directory is, in a cluster index of many. */
  repository?: string;
  /** Delete every file of `repository` instead of scanning `root` (which is then unused). */
  remove?: boolean;
  maxFileBytes?: number;
  extraIgnore?: string[];
  /** Files holding secrets: redacted or skipped (default: the tree's config file, else redact). */
  secrets?: SecretPolicy;
  view: ProgressView;
  /**
   * Warn after this long without word from the cluster (then after twice as
   * long, and so on); default 60 s. A job whose stages are not running waits
   * for them: without the warning it would look hung.
   */
  stallNoticeMs?: number;
}

const DEFAULT_STALL_NOTICE_MS = 60_000;

const CLUSTER_HINT =
  'start the development cluster with `npm run cluster` and pass the NATS URL it prints';

async function connectNats(url: string): Promise<NatsConnection> {
  // The cluster's credentials, as its services read them (NATS_USER/NATS_PASSWORD or NATS_TOKEN).
  const auth = natsAuthFromEnv(process.env);
  try {
    return await connect({ servers: url, name: 'codesift-index', timeout: 5000, ...auth });
  } catch (err) {
    throw new CodesiftError('INTERNAL', `cannot reach NATS at ${url}: ${errorMessage(err)}`, {
      hint: CLUSTER_HINT,
    });
  }
}

/** Warns on the view while the cluster stays silent: after stallNoticeMs, then twice as long, ... */
function stallNotices(opts: RemoteIndexOptions, filesDone: () => number) {
  const first = opts.stallNoticeMs ?? DEFAULT_STALL_NOTICE_MS;
  let lastHeard = performance.now();
  let next = first;
  const timer = setInterval(
    () => {
      const quiet = performance.now() - lastHeard;
      if (quiet < next) return;
      next *= 2;
      opts.view.notice(
        `no progress from the cluster for ${Math.round(quiet / 1000)} s (${filesDone()} files done): ` +
          'are its chunker, embedder and writer services running? Ctrl-C stops waiting; ' +
          'the same command run later sends only what is still missing',
      );
    },
    Math.min(1000, first),
  );
  timer.unref();
  return {
    heard() {
      lastHeard = performance.now();
      next = first;
    },
    stop: () => clearInterval(timer),
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export async function indexRemote(opts: RemoteIndexOptions): Promise<IndexSummary> {
  const indexPath = opts.indexPath === undefined ? undefined : path.resolve(opts.indexPath);
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const base: IndexProgress = {
    phase: 'scan',
    filesScanned: 0,
    filesToProcess: 0,
    filesProcessed: 0,
    chunks: 0,
    chunksPerSecond: 0,
    etaSeconds: null,
    elapsedSeconds: 0,
  };
  opts.view.update(base);

  const nc = await connectNats(opts.natsUrl);
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  let job: SubmittedJob;
  let progress: JobProgress;
  let known = new Set<string>();
  let totals: Awaited<ReturnType<typeof fetchIndexStats>>;
  let indexStarted = 0;
  try {
    await ensureStreams(await jetstreamManager(nc));
    const js = jetstream(nc);
    job = await submitIndexJob(
      js,
      opts.root,
      async () => {
        // The writer's manifest; its paths also tell new files from changed ones afterwards.
        const manifest = await fetchManifest(nc, {
          // A removal lists the repository without recording a directory for it.
          ...(opts.remove ? {} : { root: path.resolve(opts.root) }),
          ...(opts.repository === undefined ? {} : { repository: opts.repository }),
          signal: abort.signal,
          // A cluster just started may not have its writer up yet.
          waitForServiceMs: 5000,
        });
        if (opts.remove && manifest.size === 0) {
          // A misspelt name would otherwise "remove" nothing, successfully.
          throw new CodesiftError(
            'INVALID_ARGUMENT',
            `the cluster index holds no files of repository '${opts.repository}'`,
            { hint: 'GetIndexStatus (or MCP index_status) lists the repositories it holds' },
          );
        }
        known = new Set(manifest.keys());
        return manifest;
      },
      {
        rebuild: opts.rebuild,
        ...(opts.repository === undefined ? {} : { repository: opts.repository }),
        ...(opts.remove ? { scanNothing: true } : {}),
        maxFileBytes: opts.maxFileBytes,
        extraIgnore: opts.extraIgnore,
        ...(opts.secrets === undefined ? {} : { secrets: opts.secrets }),
        signal: abort.signal,
        ...(indexPath ? { excludeDirs: [path.dirname(indexPath)] } : {}),
        // Batches sized to what this server accepts.
        maxPayload: nc.info?.max_payload,
      },
    );
    indexStarted = performance.now();
    const total = job.filesTotal;
    let processed = 0;
    const show = (p: JobProgress | null) => {
      processed = p ? p.filesDone + p.filesFailed : 0;
      const seconds = (performance.now() - indexStarted) / 1000;
      const rate = seconds > 0 ? processed / seconds : 0;
      opts.view.update({
        phase: 'index',
        filesScanned: job.filesScanned,
        filesToProcess: total,
        filesProcessed: processed,
        chunks: p?.chunks ?? 0,
        chunksPerSecond: seconds > 0 ? Math.round((p?.chunks ?? 0) / seconds) : 0,
        etaSeconds: rate > 0 ? Math.max(0, (total - processed) / rate) : null,
        elapsedSeconds: elapsed(),
      });
    };
    show(null);
    const stall = stallNotices(opts, () => processed);
    try {
      progress = await watchJob(js, job.jobId, {
        signal: abort.signal,
        onProgress: (p) => {
          stall.heard();
          show(p);
        },
      });
    } finally {
      stall.stop();
    }
    totals = await fetchIndexStats(nc);
  } catch (err) {
    if (abort.signal.aborted) {
      throw new CodesiftError(
        'INTERNAL',
        'cancelled; the cluster finishes the files already sent',
        {
          hint: 'run the same command again to pick up what is left',
        },
      );
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    await nc.close().catch(() => undefined);
  }
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  opts.view.update({ ...base, phase: 'done', elapsedSeconds: elapsed() });

  const embedder = totals.embedder;
  let filesNew = 0;
  for (const p of progress.seen) if (!known.has(p) && !progress.failures.has(p)) filesNew++;
  const filesChanged = Math.max(0, progress.filesDone - job.filesDeleted - filesNew);
  return {
    root: job.root,
    indexPath: indexPath ?? totals.location,
    embedder,
    filesScanned: job.filesScanned,
    filesIndexed: filesNew + filesChanged,
    filesNew,
    filesChanged,
    filesUnchanged: job.filesUnchanged,
    filesDeleted: job.filesDeleted,
    filesFailed: progress.filesFailed,
    skipped: job.skipped,
    secretsRedacted: job.secretsRedacted,
    chunks: progress.chunks,
    symbols: progress.symbols,
    // Job events do not count vectors: with an embedder every chunk written has one.
    vectors: embedder ? progress.chunks : 0,
    totals: {
      files: totals.files,
      chunks: totals.chunks,
      symbols: totals.symbols,
      vectors: totals.vectors,
    },
    seconds: round(elapsed()),
    chunksPerSecond: round(indexSeconds > 0 ? progress.chunks / indexSeconds : 0),
    failures: [...progress.failures].map(([p, reason]) => ({ path: p, reason })),
    contextSources: {
      sources: {
        llm: progress.contextSources.llm ?? 0,
        pattern: progress.contextSources.pattern ?? 0,
      },
      fallbacks: { ...progress.contextFallbacks },
    },
    noAst: progress.noAst.toJSON(),
    structural: progress.structural.toJSON(),
  };
}
