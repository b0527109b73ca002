/** Small SQL helpers shared by the SQLite stores: statement cache, IN lists, filters. */
import type Database from 'better-sqlite3';
import type { SearchFilter } from '../ports.js';

export type Db = Database.Database;
export type Statement = Database.Statement;

/** Rows per `IN (...)` list, well under SQLite's parameter limit. */
export const IN_BATCH = 500;

/**
 * Every connection waits up to 5 s for another's lock; a writer journals to
 * a WAL, synced at NORMAL: a power loss may drop the last commits but never
 * corrupts the file.
 */
export function configureConnection(db: Db, writer: boolean): void {
  db.pragma('busy_timeout = 5000');
  if (writer) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
}

/** What every store module needs of the open database. */
export interface SqliteContext {
  readonly db: Db;
  /** The database file (`:memory:` for a throwaway index). */
  readonly file: string;
  /** A cached prepared statement for `sql`. */
  stmt(sql: string): Statement;
}

/** Prepared statements by SQL text; dynamic SQL (filters, term groups) varies, so the cache is bounded. */
export class StatementCache {
  private readonly stmts = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  get(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      if (this.stmts.size > 500) this.stmts.clear();
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Statements prepared against a dropped table are stale. */
  clear(): void {
    this.stmts.clear();
  }
}

export function sqlList(n: number): string {
  return new Array<string>(n).fill('?').join(',');
}

export function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function countRows(
  ctx: SqliteContext,
  table: 'chunks' | 'vector_rows' | 'symbols' | 'files',
): number {
  return (ctx.stmt(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}

/** SQL condition (or '' for none) for a SearchFilter on a table alias with `path` and `language`. */
export function filterSql(
  alias: string,
  filter: SearchFilter | undefined,
  params: unknown[],
): string {
  const parts: string[] = [];
  const langs = filter?.languages ?? [];
  if (langs.length > 0) {
    parts.push(`${alias}.language IN (${sqlList(langs.length)})`);
    params.push(...langs);
  }
  // instr(path, p) = 1 is an exact string-prefix test, unlike LIKE/GLOB which would need escaping.
  const include = filter?.pathPrefixes ?? [];
  if (include.length > 0) {
    parts.push(`(${include.map(() => `instr(${alias}.path, ?) = 1`).join(' OR ')})`);
    params.push(...include);
  }
  const exclude = filter?.excludePathPrefixes ?? [];
  if (exclude.length > 0) {
    parts.push(`NOT (${exclude.map(() => `instr(${alias}.path, ?) = 1`).join(' OR ')})`);
    params.push(...exclude);
  }
  return parts.join(' AND ');
}

/** better-sqlite3 refuses named parameters the statement does not use. */
export function omit(params: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _, ...rest } = params;
  return rest;
}

/** Upper bound for a prefix range scan: every string starting with `p` sorts below it. */
export function prefixEnd(p: string): string {
  return `${p}\u{10FFFF}`;
}
