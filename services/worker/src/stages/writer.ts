// writer: FileChunks (with vectors, if any) on `embedded` -> one transaction
// replacing the whole file in the index; FileDeleted on `deletes` -> the
// file's removal. The ack follows the commit (the consumer loop acks after
// the handler resolves), so a crash means redelivery, and a redelivered file
// is replaced whole again: idempotent. Every finished file is reported to the
// job as FILE_DONE.
import { publishJobEvent } from '@codesift/bus';
import { JobEvent_Kind } from '@codesift/proto';
import { requireIndexPath, type StageDefinition } from '@codesift/service-kit';
import { openSqliteIndex, type SqliteLocalIndex } from '@codesift/stores';
import { fileCommitFromWire } from '../convert.js';

/**
 * Records the embedder on first use. An index built with another model (or
 * without vectors) throws INDEX_INCOMPATIBLE, which no retry can fix: the
 * message ends in the dead-letter stream with that reason.
 */
function ensureEmbedder(index: SqliteLocalIndex, name: string | null, dims: number | null): void {
  const meta = index.meta();
  if (meta.embedder === name && meta.dimensions === dims) return;
  index.setEmbedder(name, dims);
}

export const writerStage: StageDefinition = {
  name: 'writer',
  async init({ js, config }) {
    const index = openSqliteIndex(requireIndexPath(config), { create: true });
    return {
      bindings: [
        {
          queue: 'embedded',
          async handler(file, ctx) {
            const commit = fileCommitFromWire(file);
            const dims = commit.vectors?.[0]?.length ?? null;
            // A file without chunks says nothing about the model; leave the meta alone.
            if (commit.vectors || (file.chunks.length > 0 && !file.embedder)) {
              ensureEmbedder(index, file.embedder || null, dims);
            }
            index.commitFiles([commit]);
            await publishJobEvent(
              js,
              {
                jobId: file.jobId,
                stage: 'writer',
                path: file.path,
                kind: JobEvent_Kind.FILE_DONE,
                chunks: BigInt(commit.chunks.length),
                symbols: BigInt(commit.symbols.length),
              },
              { traceparent: ctx.trace, msgId: `${file.jobId}:${file.path}:done` },
            );
          },
        },
        {
          queue: 'deletes',
          async handler(deleted, ctx) {
            index.removeFiles([deleted.path]);
            await publishJobEvent(
              js,
              {
                jobId: deleted.jobId,
                stage: 'writer',
                path: deleted.path,
                kind: JobEvent_Kind.FILE_DONE,
                detail: 'deleted',
              },
              { traceparent: ctx.trace, msgId: `${deleted.jobId}:${deleted.path}:done` },
            );
          },
        },
      ],
      close: () => index.close(),
    };
  },
};
