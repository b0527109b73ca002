/**
 * Swapping a freshly built index file in for the old one (`--rebuild`): one
 * rename, so a reader opening the path gets either the whole old index or
 * the whole new one, and a build killed before the swap leaves the old one
 * untouched.
 *
 * The WAL files are named after the path, not the inode, so they must not
 * outlive the swap: an old `index.db-wal` replayed into the new file would
 * corrupt it, and a shared `-shm` would mix the two files' WAL indexes. The
 * old file is checkpointed first (its WAL then holds nothing its main file
 * lacks) and its `-wal`/`-shm` removed just before the rename. Connections
 * that still have the old file open keep its (unlinked) inodes and read
 * the old index until they reopen; SQLite notices the file moved and does
 * not checkpoint or delete the new file's WAL when they close.
 */
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError } from '@codesift/core';
import type Database from 'better-sqlite3';
import { hnswPaths } from './hnsw-cache.js';
import { SqliteDatabase } from './native.js';
import { verifiedStampPath } from './verified-stamp.js';

const SIDE_FILES = ['-wal', '-shm', '-journal'];

/** Every file that belongs to the index at `file` (database, WAL, HNSW graph and quantized copy). */
export function indexFileSet(file: string): string[] {
  const { graph, sidecar, quantized } = hnswPaths(file);
  return [
    file,
    ...SIDE_FILES.map((s) => file + s),
    graph,
    sidecar,
    quantized,
    verifiedStampPath(file),
  ];
}

/** Deletes an index and everything beside it that belongs to it (a leftover build). */
export function removeIndexFileSet(file: string): void {
  for (const f of indexFileSet(file)) rmSync(f, { force: true });
}

/**
 * Moves the closed index `built` to `target`, replacing what is there.
 * `built` must have been closed by its last connection (its WAL then is
 * checkpointed and gone).
 */
export function replaceIndexFile(built: string, target: string): void {
  if (existsSync(`${built}-wal`) && statSync(`${built}-wal`).size > 0) {
    throw new CodesiftError('INTERNAL', `${built} still has a write-ahead log: it is not closed`);
  }
  if (existsSync(target)) checkpoint(target);
  for (const s of SIDE_FILES) {
    rmSync(built + s, { force: true });
    rmSync(target + s, { force: true });
  }
  renameSync(built, target);
  // The graph names the database generation it was saved at (hnsw-cache.ts),
  // so a graph left behind by a crash here is ignored, never misread.
  const from = hnswPaths(built);
  const to = hnswPaths(target);
  for (const key of ['graph', 'sidecar', 'quantized'] as const) {
    if (existsSync(from[key])) renameSync(from[key], to[key]);
    else rmSync(to[key], { force: true });
  }
  syncDirectory(path.dirname(target));
}

/** Folds the old file's WAL into it; a damaged or busy old index is replaced anyway. */
function checkpoint(file: string): void {
  let db: Database.Database | undefined;
  try {
    db = new SqliteDatabase(file, { fileMustExist: true });
    db.pragma('busy_timeout = 2000');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Replacing a corrupt index is what --rebuild is for.
  } finally {
    try {
      db?.close();
    } catch {
      // As above.
    }
  }
}

/** The rename survives a power loss only once the directory entry is on disk. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not every file system lets a directory be fsynced; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
