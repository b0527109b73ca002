// The scanner side of a cluster index job: scan the tree, plan against the
// index's manifest (the same planIndex the local runner uses), read what
// changed and publish it as FileWork with its content, publish FileDeleted
// for what disappeared, and finally JOB_PLANNED with the number of files
// the job waits for. The stages do the rest; watchJob follows it.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { publish, publishJobEvent } from '@codesift/bus';
import type { SkipReason } from '@codesift/core';
import { planIndex } from '@codesift/pipeline';
import { JobEvent_Kind } from '@codesift/proto';
import { readFileContent, scan } from '@codesift/scanner';
import { openSqliteIndex } from '@codesift/stores';
import type { JetStreamClient } from '@nats-io/jetstream';

export interface SubmitOptions {
  jobId?: string;
  /** Send every file, ignoring the manifest's size/mtime and hash shortcuts. */
  rebuild?: boolean;
  maxFileBytes?: number;
  extraIgnore?: string[];
  signal?: AbortSignal;
}

export interface SubmittedJob {
  jobId: string;
  root: string;
  filesScanned: number;
  /** FileWork messages published. */
  filesSent: number;
  /** FileDeleted messages published. */
  filesDeleted: number;
  /** Same size and mtime, or same content hash, as the manifest: not sent. */
  filesUnchanged: number;
  /** filesSent + filesDeleted: the FILE_DONE/FILE_FAILED events the job ends with. */
  filesTotal: number;
  skipped: Partial<Record<SkipReason, number>>;
}

const utf8 = new TextEncoder();

/**
 * Submits an index job for `root` whose results the writer stores in
 * `indexPath`. The index is opened here only to read the manifest and
 * record the root, which works while the scanner shares the writer's disk
 * (the SQLite development cluster).
 */
export async function submitIndexJob(
  js: JetStreamClient,
  root: string,
  indexPath: string,
  opts: SubmitOptions = {},
): Promise<SubmittedJob> {
  const absRoot = path.resolve(root);
  const jobId = opts.jobId ?? randomUUID();
  const scanned = await scan({
    root: absRoot,
    maxFileBytes: opts.maxFileBytes,
    excludeDirs: [path.dirname(path.resolve(indexPath))],
    extraIgnore: opts.extraIgnore,
    signal: opts.signal,
  });
  const index = openSqliteIndex(path.resolve(indexPath), { create: true });
  let manifest: Awaited<ReturnType<typeof index.manifest.all>>;
  try {
    index.setRoot(absRoot);
    manifest = await index.manifest.all();
  } finally {
    index.close();
  }
  const plan = planIndex(scanned.files, manifest, opts.rebuild === true);
  const skipped: Partial<Record<SkipReason, number>> = { ...scanned.skipped };
  const deletes = [...plan.toDelete];
  let filesSent = 0;
  let filesUnchanged = plan.unchanged;

  for (const { file, previous } of plan.toProcess) {
    if (opts.signal?.aborted) throw new Error('index job submission was cancelled');
    const outcome = await readFileContent(file, { maxFileBytes: opts.maxFileBytes });
    if (!outcome.ok) {
      skipped[outcome.skip.reason] = (skipped[outcome.skip.reason] ?? 0) + 1;
      // It was indexed before and cannot be now: drop the stale copy.
      if (previous) deletes.push(file.path);
      continue;
    }
    const content = outcome.file;
    if (previous && previous.hash === content.hash && !opts.rebuild) {
      // Only the mtime moved. Unlike local mode the manifest's stat is not
      // refreshed (the scanner does not write), so a later run reads it again.
      filesUnchanged++;
      continue;
    }
    await publish(js, 'files', {
      jobId,
      root: absRoot,
      path: content.path,
      language: content.language,
      hash: content.hash,
      size: BigInt(content.size),
      mtimeMs: content.mtimeMs,
      // The decoded text, re-encoded: the chunker sees exactly the text the
      // local runner would (lossy decoding already applied).
      content: utf8.encode(content.text),
    });
    filesSent++;
  }
  for (const p of deletes) await publish(js, 'deletes', { jobId, path: p });

  const filesTotal = filesSent + deletes.length;
  await publishJobEvent(
    js,
    {
      jobId,
      stage: 'scanner',
      kind: JobEvent_Kind.JOB_PLANNED,
      filesTotal: BigInt(filesTotal),
      detail: JSON.stringify({ root: absRoot, sent: filesSent, deleted: deletes.length }),
    },
    { msgId: `${jobId}:planned` },
  );
  return {
    jobId,
    root: absRoot,
    filesScanned: scanned.files.length,
    filesSent,
    filesDeleted: deletes.length,
    filesUnchanged,
    filesTotal,
    skipped,
  };
}
