/**
 * Telling a damaged index from a missing one: header checks before SQLite
 * opens the file, and SQLite corruption errors mapped to INDEX_CORRUPT.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { CodesiftError, errorMessage } from '@codesift/core';

export const REBUILD_HINT = 'delete the .codesift directory or run `codesift index --rebuild`';

export function isCorruptionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
  );
}

export function corrupt(file: string, cause?: unknown): CodesiftError {
  const detail = cause === undefined ? '' : `: ${errorMessage(cause)}`;
  return new CodesiftError('INDEX_CORRUPT', `index ${file} is corrupt${detail}`, {
    hint: REBUILD_HINT,
    cause,
  });
}

/** Runs `fn`, turning SQLite corruption errors into INDEX_CORRUPT. */
export function guard<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isCorruptionError(err)) throw corrupt(file, err);
    throw err;
  }
}

/**
 * Cheap checks on the raw header before SQLite touches the file: random
 * bytes fail the magic string, and a truncated file is shorter than the
 * page count its header claims (SQLite itself would only notice when a
 * query reaches a missing page). Returns false for an empty file.
 */
export function checkHeader(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const header = Buffer.alloc(100);
    const read = readSync(fd, header, 0, 100, 0);
    if (read < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\0') {
      throw corrupt(file, new Error('not an SQLite database'));
    }
    const rawPageSize = header.readUInt16BE(16);
    const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
    const pageCount = header.readUInt32BE(28);
    const headerSizeValid = header.readUInt32BE(24) === header.readUInt32BE(92);
    let walBytes = 0;
    try {
      walBytes = statSync(`${file}-wal`).size;
    } catch {
      // No WAL: the database file alone must hold every page.
    }
    if (walBytes === 0) {
      if (size % pageSize !== 0 || (headerSizeValid && pageCount * pageSize > size)) {
        throw corrupt(file, new Error('file is truncated'));
      }
    }
    return true;
  } finally {
    closeSync(fd);
  }
}
