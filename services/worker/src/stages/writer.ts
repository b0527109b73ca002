// writer: a batch of FileChunks (with vectors, if any) on `embedded` -> one
// transaction replacing every file of the batch whole in the index; a batch
// of FileDeleted on `deletes` -> one transaction removing them. The ack
// follows the commit (the consumer loop acks after the handler resolves),
// so a crash means redelivery, and a redelivered batch replaces its files
// whole again: idempotent. The finished files are then reported to the job
// in one FILES event per batch.
import { publishJobEvent, type WorkFile, workMessageId } from '@codesift/bus';
import { CodesiftError, errorMessage, isCodesiftError } from '@codesift/core';
import { JobEvent_Kind } from '@codesift/proto';
import { type StageDefinition, serveIndexStats, serveManifest } from '@codesift/service-kit';
import type { FileCommit } from '@codesift/stores';
import { openWriterStoreFromEnv } from '@codesift/stores-cluster/env';
import { fileCommitFromWire } from '../convert.js';

/**
 * Errors that are a property of the file (or of the index it does not fit),
 * so a retry fails the same way; anything else (a busy or full disk, a
 * corrupt index) fails the whole batch for redelivery.
 */
function isBadInput(err: unknown): boolean {
  return (
    isCodesiftError(err) && (err.code === 'INVALID_ARGUMENT' || err.code === 'INDEX_INCOMPATIBLE')
  );
}

interface Pending {
  file: WorkFile<'embedded'>;
  commit: FileCommit;
}

/** Least time between two optimizations of the index while writes keep coming. */
const OPTIMIZE_SPACING_MS = 30_000;

/** CODESIFT_OPTIMIZE_IDLE_MS: quiet time after the last write before optimizing; default 2000. */
function optimizeIdleMs(env: NodeJS.ProcessEnv): number {
  const raw = env.CODESIFT_OPTIMIZE_IDLE_MS?.trim();
  if (!raw) return 2000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `CODESIFT_OPTIMIZE_IDLE_MS must be a positive integer, not '${raw}'`,
    );
  }
  return n;
}

export const writerStage: StageDefinition = {
  name: 'writer',
  async init({ js, nc, env, log }) {
    // CODESIFT_STORE: the SQLite file (CODESIFT_INDEX) or Elasticsearch + Qdrant.
    const index = await openWriterStoreFromEnv(env);
    log.info('writing to', { store: index.location });
    // The manifest service: scanners plan incremental jobs from it over NATS
    // instead of opening this index.
    const manifest = serveManifest(
      nc,
      {
        all: (prefix) => index.manifest.all(prefix),
        setRoot: (root, repository) => index.setRoot(root, repository),
      },
      { onError: (err) => log.warn('manifest request failed', { error: err }) },
    );
    // After a burst of writes goes quiet, bring the read side up to date
    // (SQLite: merge FTS segments, save the HNSW graph; without it every
    // vector search in the query service falls back to an exact scan).
    // A slow embedder leaves gaps between batches longer than the idle time;
    // saving a large graph in every gap would cost more than it gives, so
    // optimizations are also spaced at least OPTIMIZE_SPACING_MS apart.
    const idleMs = optimizeIdleMs(env);
    let dirty = false;
    let timer: NodeJS.Timeout | undefined;
    let lastOptimized = Number.NEGATIVE_INFINITY;
    const optimize = async () => {
      timer = undefined;
      if (!dirty) return;
      dirty = false;
      lastOptimized = performance.now();
      const t0 = lastOptimized;
      try {
        await index.optimize();
        log.info('index optimized', { ms: Math.round(performance.now() - t0) });
      } catch (err) {
        dirty = true;
        log.warn('index optimize failed; searches may be slower until the next one', {
          error: errorMessage(err),
        });
      }
    };
    const wrote = () => {
      dirty = true;
      clearTimeout(timer);
      const spacing = lastOptimized + OPTIMIZE_SPACING_MS - performance.now();
      timer = setTimeout(() => void optimize(), Math.max(idleMs, spacing));
      timer.unref();
    };
    // Counts for clients that cannot open the index (`codesift index --remote`).
    const stats = serveIndexStats(nc, index, {
      onError: (err) => log.warn('index stats request failed', { error: err }),
    });
    return {
      bindings: [
        {
          queue: 'embedded',
          async handler(batch, ctx) {
            const fail = (file: WorkFile<'embedded'>, err: unknown) =>
              ctx.fileFailed(file, `write: ${errorMessage(err)}`);
            // Model check once per (embedder, dimensions) in the batch.
            const models = new Map<string, unknown>();
            const pending: Pending[] = [];
            for (const file of batch.files) {
              const commit = fileCommitFromWire(file);
              // A file without chunks says nothing about the model; leave the meta alone.
              if (commit.vectors || (file.chunks.length > 0 && !file.embedder)) {
                const dims = commit.vectors?.[0]?.length ?? null;
                const key = `${file.embedder}\0${dims}`;
                if (!models.has(key)) {
                  try {
                    await index.ensureEmbedder(file.embedder || null, dims);
                    models.set(key, null);
                  } catch (err) {
                    if (!isBadInput(err)) throw err;
                    models.set(key, err);
                  }
                }
                const err = models.get(key);
                if (err) {
                  await fail(file, err);
                  continue;
                }
              }
              pending.push({ file, commit });
            }

            let written = pending;
            try {
              await index.commitFiles(pending.map((p) => p.commit));
            } catch (err) {
              if (!isBadInput(err)) throw err;
              // One bad file rolled the batch back: write them one by one
              // so only the bad one fails.
              written = [];
              for (const p of pending) {
                try {
                  await index.commitFiles([p.commit]);
                  written.push(p);
                } catch (one) {
                  if (!isBadInput(one)) throw one;
                  await fail(p.file, one);
                }
              }
            }
            if (written.length === 0) return;
            wrote();
            await publishJobEvent(
              js,
              {
                jobId: batch.jobId,
                stage: 'writer',
                kind: JobEvent_Kind.FILES,
                files: written.map(({ commit }) => ({
                  path: commit.record.path,
                  kind: JobEvent_Kind.FILE_DONE,
                  chunks: BigInt(commit.chunks.length),
                  symbols: BigInt(commit.symbols.length),
                })),
              },
              { traceparent: ctx.trace, msgId: `${workMessageId('embedded', batch)}:done` },
            );
          },
        },
        {
          queue: 'deletes',
          async handler(batch, ctx) {
            const paths = batch.files.map((f) => f.path);
            await index.removeFiles(paths);
            wrote();
            await publishJobEvent(
              js,
              {
                jobId: batch.jobId,
                stage: 'writer',
                kind: JobEvent_Kind.FILES,
                files: paths.map((path) => ({
                  path,
                  kind: JobEvent_Kind.FILE_DONE,
                  detail: 'deleted',
                })),
              },
              { traceparent: ctx.trace, msgId: `${workMessageId('deletes', batch)}:done` },
            );
          },
        },
      ],
      close: async () => {
        await Promise.all([manifest.stop(), stats.stop()]);
        clearTimeout(timer);
        await optimize();
        await index.close();
      },
    };
  },
};
