/**
 * Damage a query never reaches would go unnoticed: a search reads the
 * pages its terms lead to and answers from the rest. A reader therefore
 * runs `PRAGMA quick_check` (every page, ~200 ms for a 40 MB index) when it
 * opens a file state it has not seen pass, and records that state (inode,
 * size and mtime of the file and its WAL) in `<index>.verified`, so the next
 * open of the unchanged file pays one stat. Any write, by the indexer or by
 * anything else, changes the state and the next open checks again.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { corrupt } from './corruption.js';
import type { Db } from './sql.js';

function fileState(file: string): string {
  const parts: string[] = [];
  for (const f of [file, `${file}-wal`]) {
    try {
      const st = statSync(f);
      parts.push(`${st.ino}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push('-');
    }
  }
  return parts.join('|');
}

export function verifiedStampPath(file: string): string {
  return `${file}.verified`;
}

/** Throws INDEX_CORRUPT (with the --rebuild hint) when a page of `file` is damaged. */
export function verifyPages(db: Db, file: string): void {
  const state = fileState(file);
  const stamp = verifiedStampPath(file);
  try {
    if (readFileSync(stamp, 'utf8') === state) return;
  } catch {
    // Never verified: check now.
  }
  const rows = db.prepare('PRAGMA quick_check(5)').pluck().all() as string[];
  if (rows.length !== 1 || rows[0] !== 'ok') {
    throw corrupt(file, new Error(rows.join('; ')));
  }
  try {
    writeFileSync(stamp, state);
  } catch {
    // A read-only directory: every open checks again, which is slower, not wrong.
  }
}
