import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type Chunker, createChunker } from '@codesift/chunking';
import { type Contextualizer, createPatternContextualizer, embeddingText } from '@codesift/context';
import {
  type Chunk,
  CodesiftError,
  errorMessage,
  type FileRecord,
  type SkipReason,
} from '@codesift/core';
import type { Embedder } from '@codesift/models';
import { readFileContent, scan } from '@codesift/scanner';
import { type FileCommit, openSqliteIndex } from '@codesift/stores';
import { EmbedBatcher } from './batcher.js';
import { planIndex } from './plan.js';
import type { IndexProgress, IndexSummary } from './progress.js';

export interface IndexOptions {
  root: string;
  /** Index file; default `<root>/.codesift/index.db`. */
  indexPath?: string;
  /** Embed chunks; default true. Needs `embedder`. */
  vectors?: boolean;
  /** The embedder to use when vectors are on (the caller owns and closes it). */
  embedder?: Embedder;
  contextualizer?: Contextualizer;
  chunker?: Chunker;
  /** Re-process every file, ignoring the manifest's size/mtime shortcut. */
  rebuild?: boolean;
  maxFileBytes?: number;
  extraIgnore?: string[];
  /** Files per write transaction. */
  commitEvery?: number;
  onProgress?: (p: IndexProgress) => void;
  signal?: AbortSignal;
}

export const DEFAULT_INDEX_DIR = '.codesift';
export const INDEX_FILE = 'index.db';

export function defaultIndexPath(root: string): string {
  return path.join(path.resolve(root), DEFAULT_INDEX_DIR, INDEX_FILE);
}

const PROGRESS_EVERY_MS = 100;

/**
 * Indexes `root` into a local SQLite index: scan, plan against the manifest,
 * then read -> chunk -> contextualize -> embed -> write per file. Each write
 * transaction replaces whole files and their manifest entries together, so a
 * run killed at any point leaves every file fully old or fully new, and the
 * next run picks up exactly the files that were not committed.
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
  const commitEvery = options.commitEvery ?? 64;
  const signal = options.signal;

  let lastEmit = 0;
  const progress: IndexProgress = {
    phase: 'open',
    filesScanned: 0,
    filesToProcess: 0,
    filesProcessed: 0,
    chunks: 0,
    chunksPerSecond: 0,
    etaSeconds: null,
    elapsedSeconds: 0,
  };
  let indexStarted = 0;
  const emit = (force = false) => {
    if (!options.onProgress) return;
    const now = performance.now();
    if (!force && now - lastEmit < PROGRESS_EVERY_MS) return;
    lastEmit = now;
    progress.elapsedSeconds = (now - started) / 1000;
    if (progress.phase === 'index' && indexStarted > 0) {
      const secs = (now - indexStarted) / 1000;
      progress.chunksPerSecond = secs > 0 ? progress.chunks / secs : 0;
      const rate = secs > 0 ? progress.filesProcessed / secs : 0;
      progress.etaSeconds =
        rate > 0 && progress.filesProcessed > 0
          ? (progress.filesToProcess - progress.filesProcessed) / rate
          : null;
    }
    options.onProgress({ ...progress });
  };

  emit(true);
  // Scan first: a missing or unreadable root fails before an index file is created.
  progress.phase = 'scan';
  emit(true);
  const scanned = await scan({
    root,
    maxFileBytes: options.maxFileBytes,
    excludeDirs: [path.dirname(indexPath)],
    extraIgnore: options.extraIgnore,
    signal,
  });
  progress.filesScanned = scanned.files.length;

  mkdirSync(path.dirname(indexPath), { recursive: true });
  if (options.rebuild) removeIndexFiles(indexPath);
  const index = openSqliteIndex(indexPath, { create: true });
  try {
    index.setEmbedder(embedder?.name ?? null, embedder?.dimensions ?? null);
    index.setRoot(root);
    const skipped: Partial<Record<SkipReason, number>> = { ...scanned.skipped };
    const failures: IndexSummary['failures'] = [];

    progress.phase = 'plan';
    emit(true);
    const manifest = await index.manifest.all();
    const plan = planIndex(scanned.files, manifest, options.rebuild === true);
    if (plan.toDelete.length > 0) index.removeFiles(plan.toDelete);
    progress.filesToProcess = plan.toProcess.length;

    const chunker = options.chunker ?? (await createChunker());
    const contextualizer = options.contextualizer ?? createPatternContextualizer();

    let filesNew = 0;
    let filesChanged = 0;
    let filesUnchanged = plan.unchanged;
    let chunkCount = 0;
    let symbolCount = 0;
    let vectorCount = 0;
    const toRemove: string[] = [];
    let writeBatch: FileCommit[] = [];
    const touchOnly: FileRecord[] = [];

    const commit = (force: boolean) => {
      if (writeBatch.length === 0 || (!force && writeBatch.length < commitEvery)) return;
      index.commitFiles(writeBatch);
      for (const c of writeBatch) {
        if (c.vectors) vectorCount += c.vectors.length;
      }
      writeBatch = [];
    };
    const accept = (c: FileCommit, isNew: boolean) => {
      writeBatch.push(c);
      if (isNew) filesNew++;
      else filesChanged++;
      chunkCount += c.chunks.length;
      symbolCount += c.symbols.length;
      progress.chunks = chunkCount;
      progress.filesProcessed++;
      commit(false);
      emit();
    };

    const batcher = embedder
      ? new EmbedBatcher<{ commit: FileCommit; isNew: boolean }>(
          (texts) => embedder.embed(texts, { signal }),
          embedder.maxBatch,
        )
      : null;
    const drainReady = () => {
      if (!batcher) return;
      for (const p of batcher.takeReady()) {
        p.item.commit.vectors = p.vectors as Float32Array[];
        accept(p.item.commit, p.item.isNew);
      }
    };

    progress.phase = 'index';
    indexStarted = performance.now();
    emit(true);

    // Reads run a few files ahead of chunking so disk latency hides behind CPU work.
    const READ_AHEAD = 8;
    const reads = plan.toProcess.map(() => null as ReturnType<typeof readFileContent> | null);
    const startRead = (i: number) => {
      const entry = plan.toProcess[i];
      if (entry && !reads[i])
        reads[i] = readFileContent(entry.file, { maxFileBytes: options.maxFileBytes });
    };
    for (let i = 0; i < Math.min(READ_AHEAD, plan.toProcess.length); i++) startRead(i);

    for (let i = 0; i < plan.toProcess.length; i++) {
      if (signal?.aborted) throw new CodesiftError('INTERNAL', 'indexing was cancelled');
      startRead(i + READ_AHEAD);
      const { file, previous } = plan.toProcess[i]!;
      const outcome = await reads[i]!;
      reads[i] = null;
      if (!outcome.ok) {
        const reason = outcome.skip.reason;
        skipped[reason] = (skipped[reason] ?? 0) + 1;
        if (reason === 'unreadable')
          failures.push({ path: file.path, reason: outcome.skip.detail ?? reason });
        if (previous) toRemove.push(file.path);
        progress.filesProcessed++;
        continue;
      }
      const content = outcome.file;
      const record: FileRecord = {
        path: content.path,
        hash: content.hash,
        size: content.size,
        mtimeMs: content.mtimeMs,
        language: content.language,
        chunkCount: 0,
        symbolCount: 0,
        indexedAt: Date.now(),
      };
      if (previous && previous.hash === content.hash && !options.rebuild) {
        // Touched but identical: remember the new stat so the next run skips it cheaply.
        touchOnly.push({ ...previous, size: content.size, mtimeMs: content.mtimeMs });
        filesUnchanged++;
        progress.filesProcessed++;
        continue;
      }
      let chunks: Chunk[];
      let commitRecord: FileCommit;
      try {
        const result = chunker.chunkFile({
          path: content.path,
          language: content.language,
          text: content.text,
        });
        chunks = result.chunks;
        const contexts = await contextualizer.contextualize(chunks);
        chunks.forEach((c, j) => {
          c.context = contexts[j] ?? '';
        });
        record.chunkCount = chunks.length;
        record.symbolCount = result.symbols.length;
        commitRecord = { record, chunks, vectors: null, symbols: result.symbols };
      } catch (err) {
        failures.push({ path: file.path, reason: errorMessage(err) });
        if (previous) toRemove.push(file.path);
        progress.filesProcessed++;
        continue;
      }
      if (batcher) {
        await batcher.add({ commit: commitRecord, isNew: !previous }, chunks.map(embeddingText));
        drainReady();
      } else {
        accept(commitRecord, !previous);
      }
    }
    if (batcher) {
      await batcher.flush();
      drainReady();
    }
    commit(true);
    progress.phase = 'finish';
    emit(true);
    if (toRemove.length > 0) index.removeFiles(toRemove);
    if (touchOnly.length > 0) await index.manifest.put(touchOnly);

    const stats = index.stats();
    const seconds = (performance.now() - started) / 1000;
    const indexSeconds = (performance.now() - indexStarted) / 1000;
    progress.phase = 'done';
    emit(true);
    return {
      root,
      indexPath,
      embedder: embedder?.name ?? null,
      filesScanned: scanned.files.length,
      filesIndexed: filesNew + filesChanged,
      filesNew,
      filesChanged,
      filesUnchanged,
      filesDeleted: plan.toDelete.length,
      filesFailed: failures.length,
      skipped,
      chunks: chunkCount,
      symbols: symbolCount,
      vectors: vectorCount,
      totals: {
        files: stats.files,
        chunks: stats.chunks,
        symbols: stats.symbols,
        vectors: stats.vectors,
      },
      seconds: round(seconds),
      chunksPerSecond: round(indexSeconds > 0 ? chunkCount / indexSeconds : 0),
      failures,
    };
  } finally {
    index.close();
  }
}

/** A rebuild starts from an empty file: simpler and faster than deleting every row. */
function removeIndexFiles(indexPath: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(indexPath + suffix, { force: true });
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
