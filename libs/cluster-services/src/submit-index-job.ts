// The scanner side of a cluster index job: scan the tree, plan against the
// index's manifest (the same planIndex the local runner uses), read what
// changed and publish it as FileWork with its content, packed into batches
// as it goes (never the whole tree in memory), publish FileDeleted batches
// for what disappeared, and finally JOB_PLANNED with the number of files
// the job waits for. The stages do the rest; watchJob follows it.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  type BatchLimits,
  BatchPacker,
  createWorkFile,
  DEFAULT_BATCH_LIMITS,
  messageByteLimit,
  packBatches,
  publish,
  publishJobEvent,
  type WorkFile,
} from '@codesift/bus';
import {
  CodesiftError,
  checkRepositoryName,
  type FileRecord,
  repositoryPrefix,
  type SkipReason,
} from '@codesift/core';
import { planIndex } from '@codesift/pipeline';
import { JobEvent_Kind } from '@codesift/proto';
import {
  addRedactionCounts,
  type ReadOutcome,
  readFileContent,
  type SecretPolicy,
  scan,
  secretPolicyFor,
} from '@codesift/scanner';
import { withSpan } from '@codesift/telemetry';
import type { JetStreamClient } from '@nats-io/jetstream';

export interface SubmitOptions {
  jobId?: string;
  /**
   * The repository this tree is, in an index of many: paths are sent as
   * `<repository>/<path>`, and only the manifest's files under that prefix
   * are planned against (and deleted when gone). Default: the index is this tree.
   */
  repository?: string;
  /**
   * Scan nothing: every file the manifest holds (under `repository`) is
   * deleted. Removing a repository from an index of many.
   */
  scanNothing?: boolean;
  /** Send every file, ignoring the manifest's size/mtime and hash shortcuts. */
  rebuild?: boolean;
  maxFileBytes?: number;
  extraIgnore?: string[];
  /**
   * A file holding a secret: `redact` it in what is sent, or `skip` it.
   * Default: `"secrets"` in the tree's config file, else redact.
   */
  secrets?: SecretPolicy;
  signal?: AbortSignal;
  /** Directories not to scan (e.g. one holding the index itself). */
  excludeDirs?: string[];
  /** Files and content bytes per FileWork message; default DEFAULT_BATCH_LIMITS. */
  batch?: Partial<BatchLimits>;
  /**
   * Largest message the NATS server takes (its max_payload); default 1 MiB.
   * A file whose content cannot fit is skipped as too-large.
   */
  maxPayload?: number;
}

export interface SubmittedJob {
  jobId: string;
  root: string;
  filesScanned: number;
  /** Files whose FileWork was published. */
  filesSent: number;
  /** Files whose FileDeleted was published. */
  filesDeleted: number;
  /** Work messages (batches of files or deletes) published. */
  messagesSent: number;
  /** Same size and mtime, or same content hash, as the manifest: not sent. */
  filesUnchanged: number;
  /** filesSent + filesDeleted: the FILE_DONE/FILE_FAILED events the job ends with. */
  filesTotal: number;
  skipped: Partial<Record<SkipReason, number>>;
  /** Secrets redacted from the files sent, by rule id (see @codesift/scanner). */
  secretsRedacted: Record<string, number>;
}

const utf8 = new TextEncoder();

/** Paths of deleted files per message: they are tiny, but a message has a limit too. */
const DELETES_PER_MESSAGE = 512;

/** Files read ahead of the one being packed. */
const READ_AHEAD = 16;

/** Protobuf fields of a FileWork besides its content: a generous bound. */
const FILE_WORK_OVERHEAD = 1024;

/**
 * What the job is planned against: the index's manifest, or a function that
 * fetches it (after the scan, so a slow walk does not hold a stale copy).
 * In the cluster it comes from the writer's manifest service over NATS
 * (fetchManifest), so the scanner needs no access to the index.
 */
export type ManifestInput = Map<string, FileRecord> | (() => Promise<Map<string, FileRecord>>);

/**
 * Submits an index job for `root`: every file that differs from `manifest`
 * is published, every manifest path no longer in the tree is deleted. The
 * whole submission is one span, the parent of every message it publishes.
 */
export function submitIndexJob(
  js: JetStreamClient,
  root: string,
  manifest: ManifestInput,
  opts: SubmitOptions = {},
): Promise<SubmittedJob> {
  const absRoot = path.resolve(root);
  const jobId = opts.jobId ?? randomUUID();
  return withSpan('index job', { 'codesift.job_id': jobId, 'codesift.root': absRoot }, () =>
    submit(js, absRoot, jobId, manifest, opts),
  );
}

async function submit(
  js: JetStreamClient,
  absRoot: string,
  jobId: string,
  manifestInput: ManifestInput,
  opts: SubmitOptions,
): Promise<SubmittedJob> {
  if (opts.scanNothing && opts.repository === undefined) {
    // Without a repository that would delete the whole index.
    throw new CodesiftError('INVALID_ARGUMENT', 'scanNothing needs a repository to remove');
  }
  const secrets = opts.secrets ?? (opts.scanNothing ? 'redact' : secretPolicyFor(absRoot));
  const scanned = opts.scanNothing
    ? { files: [], skipped: {} }
    : await scan({
        root: absRoot,
        maxFileBytes: opts.maxFileBytes,
        excludeDirs: opts.excludeDirs ?? [],
        extraIgnore: opts.extraIgnore,
        signal: opts.signal,
      });
  const fetched = typeof manifestInput === 'function' ? await manifestInput() : manifestInput;
  let files = scanned.files;
  let manifest = fetched;
  if (opts.repository !== undefined) {
    const prefix = repositoryPrefix(checkRepositoryName(opts.repository));
    files = files.map((f) => ({ ...f, path: prefix + f.path }));
    // The other repositories' files are not this tree's to delete.
    manifest = new Map([...fetched].filter(([p]) => p.startsWith(prefix)));
  }
  const plan = planIndex(files, manifest, opts.rebuild === true);
  const skipped: Partial<Record<SkipReason, number>> = { ...scanned.skipped };
  const secretsRedacted: Record<string, number> = {};
  const deletes = [...plan.toDelete];
  let filesSent = 0;
  let messagesSent = 0;
  let filesUnchanged = plan.unchanged;
  const limits: BatchLimits = { ...DEFAULT_BATCH_LIMITS, ...opts.batch };
  const maxMessage = messageByteLimit(opts.maxPayload);
  const packer = new BatchPacker<WorkFile<'files'>>(limits);
  // One publish in flight while the next files are read: reading and
  // publishing overlap, and memory stays bounded by two batches.
  let publishing: Promise<unknown> = Promise.resolve();
  const send = async (files: WorkFile<'files'>[] | undefined) => {
    if (!files) return;
    await publishing;
    const p = publish(js, 'files', { jobId, files });
    // Handled here so a failure waits for the next await instead of
    // crashing the process as an unhandled rejection meanwhile.
    p.catch(() => undefined);
    publishing = p;
    messagesSent++;
  };

  // Reads run a few files ahead (as in local mode): one file at a time
  // waits on the disk and the thread pool for every file in turn.
  const reads = new Map<number, Promise<ReadOutcome>>();
  const read = (i: number): Promise<ReadOutcome> => {
    const end = Math.min(i + READ_AHEAD, plan.toProcess.length);
    for (let k = i; k < end; k++) {
      if (!reads.has(k)) {
        const { file } = plan.toProcess[k]!;
        // readFileContent never rejects: failures come back as skips.
        reads.set(k, readFileContent(file, { maxFileBytes: opts.maxFileBytes, secrets }));
      }
    }
    const outcome = reads.get(i)!;
    reads.delete(i);
    return outcome;
  };

  for (let i = 0; i < plan.toProcess.length; i++) {
    if (opts.signal?.aborted) throw new Error('index job submission was cancelled');
    const { file, previous } = plan.toProcess[i]!;
    const outcome = await read(i);
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
    // The decoded text, re-encoded: the chunker sees exactly the text the
    // local runner would (lossy decoding already applied).
    const bytes = utf8.encode(content.text);
    if (bytes.length + FILE_WORK_OVERHEAD > maxMessage) {
      // No message can carry it to the chunker (raise the server's max_payload).
      skipped['too-large'] = (skipped['too-large'] ?? 0) + 1;
      if (previous) deletes.push(file.path);
      continue;
    }
    const work = createWorkFile('files', {
      root: absRoot,
      path: content.path,
      language: content.language,
      hash: content.hash,
      size: BigInt(content.size),
      mtimeMs: content.mtimeMs,
      content: bytes,
    });
    await send(packer.add(work, bytes.length));
    filesSent++;
    addRedactionCounts(secretsRedacted, outcome.secretsRedacted);
  }
  await send(packer.flush());
  await publishing;
  for (const group of packBatches(deletes, () => 1, {
    maxFiles: DELETES_PER_MESSAGE,
    maxBytes: Number.MAX_SAFE_INTEGER,
  })) {
    await publish(js, 'deletes', { jobId, files: group.map((path) => ({ path })) });
    messagesSent++;
  }

  const filesTotal = filesSent + deletes.length;
  await publishJobEvent(
    js,
    {
      jobId,
      stage: 'scanner',
      kind: JobEvent_Kind.JOB_PLANNED,
      filesTotal: BigInt(filesTotal),
      detail: JSON.stringify({
        root: absRoot,
        ...(opts.repository === undefined ? {} : { repository: opts.repository }),
        sent: filesSent,
        deleted: deletes.length,
        // Counts only, never a path or a secret: the events stream is widely readable.
        skipped,
        secretsRedacted,
      }),
    },
    { msgId: `${jobId}:planned` },
  );
  return {
    jobId,
    root: absRoot,
    filesScanned: files.length,
    filesSent,
    filesDeleted: deletes.length,
    messagesSent,
    filesUnchanged,
    filesTotal,
    skipped,
    secretsRedacted,
  };
}
