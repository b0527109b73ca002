// `codesift index --remote <nats-url>`: the scanner runs here (submitIndexJob
// reads the manifest from the cluster's SQLite index, so it must share its
// disk: the development cluster), the stages do the work, and the job's
// events drive the same progress view and summary as local mode.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ensureStreams } from '@codesift/bus';
import { CodesiftError, errorMessage } from '@codesift/core';
import type { IndexProgress, IndexSummary } from '@codesift/pipeline';
import { type JobProgress, watchJob } from '@codesift/service-kit';
import { openSqliteIndex } from '@codesift/stores';
import { type SubmittedJob, submitIndexJob } from '@codesift/worker';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ProgressView } from '../ui/progress-view.js';

export interface RemoteIndexOptions {
  natsUrl: string;
  root: string;
  indexPath: string;
  rebuild: boolean;
  maxFileBytes?: number;
  extraIgnore?: string[];
  view: ProgressView;
}

const CLUSTER_HINT =
  'start the development cluster with `npm run cluster` and pass the NATS URL and index it prints';

async function connectNats(url: string): Promise<NatsConnection> {
  try {
    return await connect({ servers: url, name: 'codesift-index', timeout: 5000 });
  } catch (err) {
    throw new CodesiftError('INTERNAL', `cannot reach NATS at ${url}: ${errorMessage(err)}`, {
      hint: CLUSTER_HINT,
    });
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export async function indexRemote(opts: RemoteIndexOptions): Promise<IndexSummary> {
  const indexPath = path.resolve(opts.indexPath);
  if (!existsSync(indexPath)) {
    throw new CodesiftError('INDEX_NOT_FOUND', `no cluster index at ${indexPath}`, {
      hint: `--index (or CODESIFT_INDEX) must name the SQLite index the cluster's writer uses; ${CLUSTER_HINT}`,
    });
  }
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

  // Paths the index held before: tells new files from changed ones afterwards.
  const before = openSqliteIndex(indexPath, { readonly: true });
  let known: Set<string>;
  try {
    known = new Set((await before.manifest.all()).keys());
  } finally {
    before.close();
  }

  const nc = await connectNats(opts.natsUrl);
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  let job: SubmittedJob;
  let progress: JobProgress;
  let indexStarted = 0;
  try {
    await ensureStreams(await jetstreamManager(nc));
    const js = jetstream(nc);
    job = await submitIndexJob(js, opts.root, indexPath, {
      rebuild: opts.rebuild,
      maxFileBytes: opts.maxFileBytes,
      extraIgnore: opts.extraIgnore,
      signal: abort.signal,
    });
    indexStarted = performance.now();
    const total = job.filesTotal;
    const show = (p: JobProgress | null) => {
      const processed = p ? p.filesDone + p.filesFailed : 0;
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
    progress = await watchJob(js, job.jobId, { signal: abort.signal, onProgress: show });
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

  const after = openSqliteIndex(indexPath, { readonly: true });
  let stats: ReturnType<typeof after.stats>;
  let embedder: string | null;
  try {
    stats = after.stats();
    embedder = after.meta().embedder;
  } finally {
    after.close();
  }
  let filesNew = 0;
  for (const p of progress.seen) if (!known.has(p) && !progress.failures.has(p)) filesNew++;
  const filesChanged = Math.max(0, progress.filesDone - job.filesDeleted - filesNew);
  return {
    root: job.root,
    indexPath,
    embedder,
    filesScanned: job.filesScanned,
    filesIndexed: filesNew + filesChanged,
    filesNew,
    filesChanged,
    filesUnchanged: job.filesUnchanged,
    filesDeleted: job.filesDeleted,
    filesFailed: progress.filesFailed,
    skipped: job.skipped,
    chunks: progress.chunks,
    symbols: progress.symbols,
    // Job events do not count vectors: with an embedder every chunk written has one.
    vectors: embedder ? progress.chunks : 0,
    totals: {
      files: stats.files,
      chunks: stats.chunks,
      symbols: stats.symbols,
      vectors: stats.vectors,
    },
    seconds: round(elapsed()),
    chunksPerSecond: round(indexSeconds > 0 ? progress.chunks / indexSeconds : 0),
    failures: [...progress.failures].map(([p, reason]) => ({ path: p, reason })),
  };
}
