// writer: a batch of FileChunks (with vectors, if any) on `embedded` -> one
// transaction replacing every file of the batch whole in the index; a batch
// of FileDeleted on `deletes` -> one transaction removing them. The ack
// follows the commit (runStage acks once the handler's result is stored),
// so a crash means redelivery, and a redelivered batch replaces its files
// whole again: idempotent. The handler returns the finished files, which
// runStage reports to the job in one FILES event per batch.
import type { WorkFile, WorkMessage } from '@codesift/bus';
import { serveIndexStats, serveManifest } from '@codesift/cluster-services';
import { type Chunk, CodesiftError, errorMessage, isCodesiftError } from '@codesift/core';
import type { FailedFile, StageDefinition, StageResult } from '@codesift/service-kit';
import type { FileCommit } from '@codesift/stores';
import type { WriterStore } from '@codesift/stores-cluster';
import { openWriterStoreFromEnv } from '@codesift/stores-cluster/env';
import { fileCommitFromWire } from '@codesift/wire';
import { createOptimizeScheduler } from '../optimize-scheduler.js';

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

/**
 * Commits a batch of files in one transaction. A file the index refuses
 * (another model, a bad vector) fails alone; anything else throws, and the
 * batch is retried whole. The committed files are the batch's done files.
 */
export async function writeBatch(
  index: Pick<WriterStore, 'ensureEmbedder' | 'commitFiles'>,
  batch: WorkMessage<'embedded'>,
): Promise<StageResult<'embedded'>> {
  const failed: FailedFile<'embedded'>[] = [];
  const fail = (file: WorkFile<'embedded'>, err: unknown) =>
    failed.push({ file, reason: `write: ${errorMessage(err)}` });
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
        fail(file, err);
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
    // One bad file rolled the batch back: write them one by one so only
    // the bad one fails.
    written = [];
    for (const p of pending) {
      try {
        await index.commitFiles([p.commit]);
        written.push(p);
      } catch (one) {
        if (!isBadInput(one)) throw one;
        fail(p.file, one);
      }
    }
  }
  return {
    failed,
    done: written.map(({ file, commit }) => ({
      path: commit.record.path,
      chunks: commit.chunks.length,
      symbols: commit.symbols.length,
      ...contextCounts(commit.chunks),
      language: commit.record.language,
      ...(file.noAst ? { noAst: file.noAst } : {}),
      ...(file.structural ? { structural: file.structural } : {}),
    })),
  };
}

export const writerStage: StageDefinition = {
  name: 'writer',
  async init({ nc, env, log }) {
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
    const optimizer = createOptimizeScheduler(() => index.optimize(), {
      idleMs: optimizeIdleMs(env),
      log,
    });
    // Counts for clients that cannot open the index (`codesift index --remote`).
    const stats = serveIndexStats(nc, index, {
      onError: (err) => log.warn('index stats request failed', { error: err }),
    });
    return {
      bindings: [
        {
          queue: 'embedded',
          async handler(batch) {
            const result = await writeBatch(index, batch);
            if (result.done?.length) optimizer.wrote();
            return result;
          },
        },
        {
          queue: 'deletes',
          async handler(batch) {
            const paths = batch.files.map((f) => f.path);
            await index.removeFiles(paths);
            optimizer.wrote();
            return { done: paths.map((path) => ({ path, detail: 'deleted' })) };
          },
        },
      ],
      close: async () => {
        await Promise.all([manifest.stop(), stats.stop()]);
        await optimizer.flush();
        await index.close();
      },
    };
  },
};

/** A file's chunks by who wrote their context, for the job's summary. */
export function contextCounts(chunks: readonly Chunk[]): {
  contextSources: Record<string, number>;
  contextFallbacks: Record<string, number>;
} {
  const contextSources: Record<string, number> = {};
  const contextFallbacks: Record<string, number> = {};
  for (const c of chunks) {
    if (c.contextSource)
      contextSources[c.contextSource] = (contextSources[c.contextSource] ?? 0) + 1;
    if (c.contextFallback) {
      contextFallbacks[c.contextFallback] = (contextFallbacks[c.contextFallback] ?? 0) + 1;
    }
  }
  return { contextSources, contextFallbacks };
}
