import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Chunker, createChunker } from '@codesift/chunking';
import {
  CONTEXT_CACHE_FILE,
  type ContextCache,
  ContextTally,
  type Contextualizer,
  createLlmContextualizer,
  createPatternContextualizer,
  embeddingText,
  openContextCache,
} from '@codesift/context';
import { CodesiftError, type FileRecord, type ScannedFile, type SkipReason } from '@codesift/core';
import { createLlmClient, type LlmClient, type LlmConfig } from '@codesift/llm';
import type { Embedder } from '@codesift/models';
import {
  addRedactionCounts,
  type ReadOutcome,
  readFileContent,
  type SecretPolicy,
  scan,
  scanFiles,
  secretPolicyFor,
} from '@codesift/scanner';
import {
  defaultIndexPath,
  type FileCommit,
  openSqliteIndex,
  removeIndexFileSet,
  replaceIndexFile,
} from '@codesift/stores';
import { EmbedBatcher } from './batcher.js';
import { FileWriter } from './file-writer.js';
import { excludeFromGit } from './git-exclude.js';
import { refreshHistory } from './git-history.js';
import { acquireIndexLock, type LockHolder } from './index-lock.js';
import { planIndex } from './plan.js';
import { type PreparedFile, prepareFile } from './prepare-file.js';
import type { IndexProgress, IndexSummary } from './progress.js';
import { ProgressTracker } from './progress-tracker.js';
import { FilesByLanguage, SkippedPaths } from './skipped-paths.js';

export interface IndexOptions {
  root: string;
  /** Index file; default `<root>/.codesift/index.db`. */
  indexPath?: string;
  /** Embed chunks; default true. Needs `embedder`. */
  vectors?: boolean;
  /** The embedder to use when vectors are on (the caller owns and closes it). */
  embedder?: Embedder;
  contextualizer?: Contextualizer;
  /**
   * LLM-mode contexts from this model (when no `contextualizer` is given):
   * one call per chunk, the pattern context per chunk when a call fails,
   * accepted answers cached in `<index dir>/contexts.db` (kept by --rebuild,
   * unless `dropContextCache`).
   */
  llm?: LlmConfig;
  /** Delete `<index dir>/contexts.db` first, so every chunk is asked again (a new model setup, a bad cache). */
  dropContextCache?: boolean;
  chunker?: Chunker;
  /** Re-process every file, ignoring the manifest's size/mtime shortcut. */
  rebuild?: boolean;
  /**
   * Only these root-relative files (a watch knows what changed): each is
   * checked by the scan's rules and stat'ed instead of walking the tree, and
   * planned against its own manifest entry, so a run costs what changed, not
   * the tree's size. The rest of the index is left as it is. Falls back to
   * the full scan when one of them is a directory, a link or an ignore file.
   */
  only?: readonly string[];
  maxFileBytes?: number;
  extraIgnore?: string[];
  /**
   * A file holding a secret: `redact` it in what is stored, or `skip` the
   * file. Default: `"secrets"` in the repository config file, else redact.
   */
  secrets?: SecretPolicy;
  /** Files per write transaction. */
  commitEvery?: number;
  onProgress?: (p: IndexProgress) => void;
  signal?: AbortSignal;
  /**
   * Another indexer holds the index's lock (index-lock.ts): refuse with
   * BUSY instead of waiting for it. Default false (wait).
   */
  noWait?: boolean;
  /** Called once when this run starts waiting for another indexer's lock. */
  onLockWait?: (holder: LockHolder, lockFile: string) => void;
  /**
   * The repository's recent commits (message and changed files), stored for
   * the search's history prior (git-history.ts): read from the root's own
   * repository (default true), from a git directory at a revision whose
   * tree the root holds, or not at all (false). Runs with `only` leave the
   * stored history as it is.
   */
  history?: boolean | { gitDir: string; rev: string };
}

export { defaultIndexPath } from '@codesift/stores';

/**
 * Embedding batches handed to an embedder that does not say how many it
 * works on at once (Embedder.concurrency; the built-in model's workers say:
 * a batch running and one queued behind it each, so a worker goes on
 * without waiting for this thread, busy chunking, to hand it over).
 */
const EMBED_BATCHES_IN_FLIGHT = 4;

/** A rebuild writes here, beside the index, and is renamed over it once complete. */
export function rebuildPathOf(indexPath: string): string {
  return `${indexPath}.rebuild`;
}

/**
 * Indexes `root` into a local SQLite index: scan, plan against the manifest,
 * then read -> chunk -> contextualize -> embed -> write per file. Each write
 * transaction replaces whole files and their manifest entries together, so a
 * run killed at any point leaves every file fully old or fully new, and the
 * next run picks up exactly the files that were not committed. A rebuild
 * writes a new file and swaps it in at the end (a killed rebuild leaves the
 * old index as it was). One run at a time holds the index's lock.
 */
export async function indexRepository(options: IndexOptions): Promise<IndexSummary> {
  const started = performance.now();
  const root = path.resolve(options.root);
  const indexPath = path.resolve(options.indexPath ?? defaultIndexPath(root));
  const vectorsOn = options.vectors ?? true;
  if (vectorsOn && !options.embedder) {
    throw new CodesiftError('INVALID_ARGUMENT', 'vectors are on but no embedder was given');
  }
  const embedder = vectorsOn ? options.embedder : undefined;
  const signal = options.signal;
  // Read before anything is written: a wrong value in the config file fails the run.
  const secrets = options.secrets ?? secretPolicyFor(root);
  const tracker = new ProgressTracker(started, options.onProgress);
  const progress = tracker.progress;

  tracker.phase('open');
  // Scan first: a missing or unreadable root fails before an index file is created.
  tracker.phase('scan');
  const scanOptions = {
    root,
    maxFileBytes: options.maxFileBytes,
    excludeDirs: [path.dirname(indexPath)],
    extraIgnore: options.extraIgnore,
  };
  const narrowed =
    options.only && !options.rebuild && existsSync(indexPath)
      ? scanFiles(options.only, scanOptions)
      : null;
  const scanned = narrowed
    ? {
        files: narrowed.files,
        skipped: countSkips(narrowed.skippedFiles),
        skippedFiles: narrowed.skippedFiles,
      }
    : await scan({ ...scanOptions, signal });
  progress.filesScanned = scanned.files.length;

  mkdirSync(path.dirname(indexPath), { recursive: true });
  // A .codesift/ inside a git work tree stays out of `git status`.
  excludeFromGit(path.dirname(indexPath));
  // A rebuild starts from an empty file (simpler and faster than deleting
  // every row) that readers do not see until it is complete.
  const writePath = options.rebuild ? rebuildPathOf(indexPath) : indexPath;
  const lock = await acquireIndexLock(indexPath, {
    noWait: options.noWait,
    onWait: options.onLockWait,
    signal,
  });
  let index: ReturnType<typeof openSqliteIndex>;
  try {
    // A rebuild killed before its swap left its file behind; the lock says nobody writes it now.
    removeIndexFileSet(rebuildPathOf(indexPath));
    if (options.dropContextCache) {
      removeIndexFileSet(path.join(path.dirname(indexPath), CONTEXT_CACHE_FILE));
    }
    index = openSqliteIndex(writePath, { create: true });
  } catch (err) {
    lock.release();
    throw err;
  }
  let contextCache: ContextCache | undefined;
  let complete = false;
  try {
    index.setEmbedder(embedder?.name ?? null, embedder?.dimensions ?? null);
    index.setRoot(root);
    const skipped: Partial<Record<SkipReason, number>> = { ...scanned.skipped };
    const skippedPaths = new SkippedPaths(scanned.skippedFiles);
    const noAst = new FilesByLanguage();
    const structural = new FilesByLanguage();
    const secretsRedacted: Record<string, number> = {};
    const failures: IndexSummary['failures'] = [];

    tracker.phase('plan');
    const manifest = narrowed
      ? await manifestOf(index, [...narrowed.files.map((f) => f.path), ...narrowed.gone])
      : await index.manifest.all();
    const plan = planIndex(scanned.files, manifest, options.rebuild === true);
    if (plan.toDelete.length > 0) index.removeFiles(plan.toDelete);
    progress.filesToProcess = plan.toProcess.length;

    let llmClient: LlmClient | undefined;
    let contextualizer = options.contextualizer ?? createPatternContextualizer();
    // Nothing to process (a re-index with nothing changed): no client, no cache
    // file, so LLM mode costs what pattern mode does.
    if (options.llm && !options.contextualizer && plan.toProcess.length > 0) {
      llmClient = createLlmClient(options.llm);
      contextCache = openContextCache(path.join(path.dirname(indexPath), CONTEXT_CACHE_FILE));
      contextualizer = createLlmContextualizer({
        client: llmClient,
        cache: contextCache,
        // Several files per call slot: small files alone would leave slots idle.
        parallelFiles: options.llm.concurrency * 4,
      });
    }
    const tally = new ContextTally(
      llmClient ??
        (options.llm && !options.contextualizer ? { model: options.llm.model } : undefined),
    );
    const deps = {
      chunker: options.chunker ?? (await createChunker()),
      contextualizer,
      rebuild: options.rebuild === true,
    };
    const writer = new FileWriter(index, options.commitEvery ?? 64);
    let filesUnchanged = plan.unchanged;
    const toRemove: string[] = [];
    const touchOnly: FileRecord[] = [];
    const done = () => {
      progress.filesProcessed++;
      tracker.emit();
    };
    const accept = (commit: FileCommit, isNew: boolean) => {
      writer.add(commit, isNew);
      progress.chunks = writer.chunks;
      done();
    };
    const batcher = embedder
      ? new EmbedBatcher<{ commit: FileCommit; isNew: boolean }>(
          (texts) => embedder.embed(texts, { signal }),
          embedder.maxBatch,
          embedder.concurrency ?? EMBED_BATCHES_IN_FLIGHT,
        )
      : null;
    const drainReady = () => {
      for (const p of batcher?.takeReady() ?? []) {
        p.item.commit.vectors = p.vectors as Float32Array[];
        accept(p.item.commit, p.item.isNew);
      }
    };

    tracker.phase('index');
    const reads = new ReadAhead(plan.toProcess, { maxFileBytes: options.maxFileBytes, secrets });
    const prepares = new PrepareAhead(
      (k) => {
        const { previous } = plan.toProcess[k]!;
        return reads.take(k).then(
          async (outcome): Promise<Staged> =>
            outcome.ok
              ? {
                  ok: true,
                  prepared: await prepareFile(outcome.file, previous, deps),
                  secretsRedacted: outcome.secretsRedacted,
                }
              : outcome,
        );
      },
      plan.toProcess.length,
      contextualizer.parallelFiles,
    );
    for (let i = 0; i < plan.toProcess.length; i++) {
      if (signal?.aborted) throw new CodesiftError('INTERNAL', 'indexing was cancelled');
      const { file, previous } = plan.toProcess[i]!;
      const staged = await prepares.take(i);
      if (!staged.ok) {
        const reason = staged.skip.reason;
        skipped[reason] = (skipped[reason] ?? 0) + 1;
        skippedPaths.add(file.path, reason);
        if (reason === 'unreadable') {
          failures.push({ path: file.path, reason: staged.skip.detail ?? reason });
        }
        if (previous) toRemove.push(file.path);
        done();
        continue;
      }
      const prepared = staged.prepared;
      if (prepared.kind === 'touch') {
        // Remember the new stat so the next run skips the file without reading it.
        touchOnly.push(prepared.record);
        filesUnchanged++;
        done();
      } else if (prepared.kind === 'failed') {
        failures.push({ path: file.path, reason: prepared.reason });
        if (previous) toRemove.push(file.path);
        done();
      } else {
        if (prepared.noAst !== undefined) noAst.add(file.path, file.language, prepared.noAst);
        if (prepared.structural !== undefined) {
          structural.add(file.path, file.language, prepared.structural);
        }
        addRedactionCounts(secretsRedacted, staged.secretsRedacted);
        tally.add(prepared.contexts);
        if (batcher) {
          const item = { commit: prepared.commit, isNew: !previous };
          await batcher.add(item, prepared.commit.chunks.map(embeddingText));
          drainReady();
        } else {
          accept(prepared.commit, !previous);
        }
      }
    }
    if (batcher) {
      await batcher.flush();
      drainReady();
    }
    writer.flush();
    tracker.phase('finish');
    if (toRemove.length > 0) index.removeFiles(toRemove);
    if (touchOnly.length > 0) await index.manifest.put(touchOnly);
    const historyCommits =
      options.only === undefined && options.history !== false
        ? await refreshHistory(
            index,
            typeof options.history === 'object' ? options.history : { root },
            options.signal,
          )
        : null;

    const stats = index.stats();
    const indexSeconds = tracker.indexSeconds();
    complete = true;
    tracker.phase('done');
    return {
      root,
      indexPath,
      embedder: embedder?.name ?? null,
      filesScanned: scanned.files.length,
      filesIndexed: writer.filesNew + writer.filesChanged,
      filesNew: writer.filesNew,
      filesChanged: writer.filesChanged,
      filesUnchanged,
      filesDeleted: plan.toDelete.length,
      filesFailed: failures.length,
      skipped,
      skippedPaths: skippedPaths.toJSON(),
      noAst: noAst.toJSON(),
      structural: structural.toJSON(),
      secretsRedacted,
      chunks: writer.chunks,
      symbols: writer.symbols,
      vectors: writer.vectors,
      totals: {
        files: stats.files,
        chunks: stats.chunks,
        symbols: stats.symbols,
        vectors: stats.vectors,
      },
      seconds: round((performance.now() - started) / 1000),
      chunksPerSecond: round(indexSeconds > 0 ? writer.chunks / indexSeconds : 0),
      failures,
      context: tally.summary(),
      ...(historyCommits === null ? {} : { historyCommits }),
    };
  } finally {
    try {
      contextCache?.close();
      index.close();
      if (writePath !== indexPath) {
        if (complete) replaceIndexFile(writePath, indexPath);
        else removeIndexFileSet(writePath);
      }
    } finally {
      lock.release();
    }
  }
}

/** Reads run a few files ahead of chunking, so disk latency hides behind CPU work. */
class ReadAhead {
  private static readonly DEPTH = 8;
  private readonly reads = new Map<number, Promise<ReadOutcome>>();

  constructor(
    private readonly entries: readonly { file: ScannedFile }[],
    private readonly readOptions: Parameters<typeof readFileContent>[1],
  ) {}

  take(i: number): Promise<ReadOutcome> {
    for (let k = i; k < Math.min(i + ReadAhead.DEPTH, this.entries.length); k++) this.start(k);
    const read = this.reads.get(i)!;
    this.reads.delete(i);
    return read;
  }

  private start(k: number): void {
    if (this.reads.has(k)) return;
    const entry = this.entries[k]!;
    this.reads.set(k, readFileContent(entry.file, this.readOptions));
  }
}

/**
 * Files prepared (read, chunked, contextualized) ahead of the one being
 * written: `depth` of them at once. The pattern contextualizer uses depth 1
 * (CPU-bound, nothing to overlap); LLM mode overlaps model calls across files
 * so small files still keep the client's concurrency busy.
 */
class PrepareAhead {
  private readonly started = new Map<number, Promise<Staged>>();

  constructor(
    private readonly stage: (k: number) => Promise<Staged>,
    private readonly count: number,
    private readonly depth: number,
  ) {}

  take(i: number): Promise<Staged> {
    for (let k = i; k < Math.min(i + Math.max(1, this.depth), this.count); k++) {
      if (!this.started.has(k)) this.started.set(k, this.stage(k));
    }
    const staged = this.started.get(i)!;
    this.started.delete(i);
    return staged;
  }
}

type Staged =
  | Extract<ReadOutcome, { ok: false }>
  | { ok: true; prepared: PreparedFile; secretsRedacted: Record<string, number> };

/** The manifest entries of `paths` that exist: a narrowed run plans against these alone. */
async function manifestOf(
  index: { manifest: { get(p: string): Promise<FileRecord | undefined> } },
  paths: readonly string[],
): Promise<Map<string, FileRecord>> {
  const out = new Map<string, FileRecord>();
  for (const p of paths) {
    const record = await index.manifest.get(p);
    if (record) out.set(p, record);
  }
  return out;
}

function countSkips(
  skipped: readonly { reason: SkipReason }[],
): Partial<Record<SkipReason, number>> {
  const out: Partial<Record<SkipReason, number>> = {};
  for (const s of skipped) out[s.reason] = (out[s.reason] ?? 0) + 1;
  return out;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
