/**
 * `codesift index --check`: every page of the SQLite file (integrity_check),
 * the FTS5 index's own structure, and whether the tables that must agree
 * do: every chunk's file in the manifest, one vector per chunk when the
 * index has an embedder, and the sqlite-vec table holding exactly the rows
 * vector_rows maps. The HNSW graph is a cache (search falls back to exact
 * when it does not match), so its state is reported, never a failure.
 */
import { errorMessage } from '@codesift/core';
import { SqliteDatabase } from './native.js';
import { countRows, type SqliteContext } from './sql.js';
import type { VectorIndexState } from './vector-store.js';

export interface IntegrityReport {
  ok: boolean;
  /** One line per problem found; empty when ok. */
  problems: string[];
  /** What was checked, with counts: for the report. */
  checked: {
    pages: 'ok' | 'failed';
    keyword: 'ok' | 'failed';
    files: number;
    chunks: number;
    vectors: number;
    /** The HNSW graph's state (see VectorIndexState), null when it could not be read. */
    hnsw: VectorIndexState['reason'] | null;
  };
}

/** At most this many lines of integrity_check's own output are kept. */
const MAX_PAGE_PROBLEMS = 20;

export function checkIntegrity(
  ctx: SqliteContext,
  embedder: string | null,
  vectorState: () => VectorIndexState,
): IntegrityReport {
  const problems: string[] = [];
  const attempt = <T>(what: string, fn: () => T): T | null => {
    try {
      return fn();
    } catch (err) {
      problems.push(`${what}: ${errorMessage(err)}`);
      return null;
    }
  };
  const rows = attempt('integrity_check', () =>
    ctx.db.prepare(`PRAGMA integrity_check(${MAX_PAGE_PROBLEMS})`).pluck().all(),
  ) as string[] | null;
  const pagesOk = rows !== null && rows.length === 1 && rows[0] === 'ok';
  if (rows !== null && !pagesOk) problems.push(...rows.map((r) => `pages: ${r}`));

  // FTS5's own check reads every segment (a damaged one throws
  // SQLITE_CORRUPT_VTAB). It is spelled as an INSERT, so a read-only
  // handle runs it on a connection of its own, in a transaction rolled back.
  const ftsOk = attempt('keyword index', () => checkFts(ctx)) !== null;

  const count = (table: 'files' | 'chunks' | 'vector_rows') =>
    attempt(`counting ${table}`, () => countRows(ctx, table)) ?? 0;
  const files = count('files');
  const chunks = count('chunks');
  const vectors = count('vector_rows');
  const scalar = (what: string, sql: string): number =>
    (attempt(what, () => ctx.db.prepare(sql).pluck().get()) as number | null) ?? 0;

  const expectedChunks = scalar('manifest', 'SELECT coalesce(sum(chunk_count), 0) FROM files');
  if (expectedChunks !== chunks) {
    problems.push(`chunks: the manifest lists ${expectedChunks}, the index holds ${chunks}`);
  }
  const orphans = scalar(
    'chunks',
    'SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = c.path)',
  );
  if (orphans > 0) problems.push(`chunks: ${orphans} belong to no file in the manifest`);

  if (embedder !== null) {
    if (vectors !== chunks) problems.push(`vectors: ${vectors} for ${chunks} chunks`);
    const stray = scalar(
      'vectors',
      'SELECT count(*) FROM vector_rows v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.id)',
    );
    if (stray > 0) problems.push(`vectors: ${stray} belong to no chunk`);
    const stored = scalar('sqlite-vec table', 'SELECT count(*) FROM chunk_vectors');
    if (stored !== vectors) {
      problems.push(`vectors: the sqlite-vec table holds ${stored}, vector_rows maps ${vectors}`);
    }
  } else if (vectors > 0) {
    problems.push(`vectors: ${vectors} stored in an index without an embedder`);
  }
  const hnsw = attempt('HNSW state', () => vectorState().reason);
  return {
    ok: problems.length === 0,
    problems,
    checked: {
      pages: pagesOk ? 'ok' : 'failed',
      keyword: ftsOk ? 'ok' : 'failed',
      files,
      chunks,
      vectors,
      hnsw,
    },
  };
}

function checkFts(ctx: SqliteContext): true {
  const sql = "INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')";
  if (!ctx.db.readonly) {
    ctx.db.prepare(sql).run();
    return true;
  }
  const db = new SqliteDatabase(ctx.file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN');
    try {
      db.prepare(sql).run();
    } finally {
      db.exec('ROLLBACK');
    }
    return true;
  } finally {
    db.close();
  }
}
