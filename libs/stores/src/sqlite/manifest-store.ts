/** The manifest: one row per indexed file (hash, size, counts), keyed by path. */
import type { FileRecord } from '@codesift/core';
import type { SqliteContext } from './sql.js';

interface FileRow {
  path: string;
  hash: string;
  size: number;
  mtime_ms: number;
  language: string;
  chunk_count: number;
  symbol_count: number;
  indexed_at: number;
}

function rowToFile(r: FileRow): FileRecord {
  return {
    path: r.path,
    hash: r.hash,
    size: r.size,
    mtimeMs: r.mtime_ms,
    language: r.language,
    chunkCount: r.chunk_count,
    symbolCount: r.symbol_count,
    indexedAt: r.indexed_at,
  };
}

/** The smallest string above every string that starts with `prefix` (its last UTF-16 unit raised). */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

export class ManifestStore {
  constructor(private readonly ctx: SqliteContext) {}

  get(p: string): FileRecord | undefined {
    const row = this.ctx.stmt('SELECT * FROM files WHERE path = ?').get(p) as FileRow | undefined;
    return row ? rowToFile(row) : undefined;
  }

  /** The records of `paths` in one statement (a search checks ten files); a path not indexed is absent. */
  getMany(paths: readonly string[]): Map<string, FileRecord> {
    const rows = this.ctx
      .stmt('SELECT * FROM files WHERE path IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(paths)) as FileRow[];
    return new Map(rows.map((r) => [r.path, rowToFile(r)]));
  }

  all(prefix = ''): Map<string, FileRecord> {
    const rows = (
      prefix === ''
        ? this.ctx.stmt('SELECT * FROM files ORDER BY path').all()
        : // The primary key's range [prefix, prefix with its last character raised): the
          // paths that start with it under BINARY collation, without reading the others.
          this.ctx
            .stmt('SELECT * FROM files WHERE path >= ? AND path < ? ORDER BY path')
            .all(prefix, prefixEnd(prefix))
    ) as FileRow[];
    return new Map(
      rows.filter((r) => r.path.startsWith(prefix)).map((r) => [r.path, rowToFile(r)]),
    );
  }

  /**
   * Every path, sorted: the primary key alone, several times cheaper than
   * all() on a large index. With `containing`, those holding one of the
   * substrings (LIKE: ASCII case-insensitive), matched inside SQLite.
   */
  paths(containing: readonly string[] = []): string[] {
    const where = containing.map(() => "path LIKE ? ESCAPE '\\'").join(' OR ');
    const like = containing.map((p) => `%${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const rows = this.ctx
      .stmt(`SELECT path FROM files${where ? ` WHERE ${where}` : ''} ORDER BY path`)
      .raw()
      .all(...like) as [string][];
    return rows.map((r) => r[0]);
  }

  /** Whether any path starts with `prefix` (one index seek). */
  hasUnder(prefix: string): boolean {
    return (
      this.ctx
        .stmt('SELECT 1 FROM files WHERE path >= ? AND path < ? LIMIT 1')
        .get(prefix, prefixEnd(prefix)) !== undefined
    );
  }

  put(r: FileRecord): void {
    this.ctx
      .stmt(
        `INSERT INTO files(path, hash, size, mtime_ms, language, chunk_count, symbol_count, indexed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, size = excluded.size,
           mtime_ms = excluded.mtime_ms, language = excluded.language,
           chunk_count = excluded.chunk_count, symbol_count = excluded.symbol_count,
           indexed_at = excluded.indexed_at`,
      )
      .run(r.path, r.hash, r.size, r.mtimeMs, r.language, r.chunkCount, r.symbolCount, r.indexedAt);
  }

  remove(paths: readonly string[]): void {
    for (const p of paths) this.ctx.stmt('DELETE FROM files WHERE path = ?').run(p);
  }
}
