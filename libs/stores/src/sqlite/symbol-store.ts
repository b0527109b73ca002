/** Symbols: case-insensitive exact and prefix lookup, a file's symbols, the name vocabulary and the names related to some words. */
import type { SymbolInfo, UnitKind } from '@codesift/core';
import type { SymbolLookupOptions, VocabularyOptions } from '../ports.js';
import { chunked, IN_BATCH, omit, prefixEnd, type SqliteContext, sqlList } from './sql.js';
import { SymbolStems } from './symbol-stems.js';

interface SymbolRow {
  id: string;
  name: string;
  qualified_name: string;
  kind: string;
  path: string;
  language: string;
  start_line: number;
  end_line: number;
  parent: string | null;
  signature: string;
  doc: string;
}

function rowToSymbol(r: SymbolRow): SymbolInfo {
  return {
    id: r.id,
    name: r.name,
    qualifiedName: r.qualified_name,
    kind: r.kind as UnitKind,
    path: r.path,
    language: r.language,
    startLine: r.start_line,
    endLine: r.end_line,
    parent: r.parent,
    signature: r.signature,
    doc: r.doc,
  };
}

export class SymbolStore {
  private readonly stems: SymbolStems;

  constructor(private readonly ctx: SqliteContext) {
    this.stems = new SymbolStems(ctx);
  }

  /** Forget derived caches: symbols were written through this connection. */
  invalidate(): void {
    this.stems.invalidate();
  }

  upsert(symbols: readonly SymbolInfo[]): void {
    const ins = this.ctx.stmt(
      `INSERT INTO symbols(id, name, name_lc, qualified_name, qualified_lc, kind, path, language,
         start_line, end_line, parent, signature, doc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, name_lc = excluded.name_lc,
         qualified_name = excluded.qualified_name, qualified_lc = excluded.qualified_lc,
         kind = excluded.kind, path = excluded.path, language = excluded.language,
         start_line = excluded.start_line, end_line = excluded.end_line, parent = excluded.parent,
         signature = excluded.signature, doc = excluded.doc`,
    );
    for (const s of symbols) {
      ins.run(
        s.id,
        s.name,
        s.name.toLowerCase(),
        s.qualifiedName,
        s.qualifiedName.toLowerCase(),
        s.kind,
        s.path,
        s.language,
        s.startLine,
        s.endLine,
        s.parent,
        s.signature,
        s.doc,
      );
    }
  }

  deleteByPaths(paths: readonly string[]): void {
    for (const p of paths) this.ctx.stmt('DELETE FROM symbols WHERE path = ?').run(p);
  }

  /**
   * Exact matches put declarations before what only adds to them or names
   * them: a Rust `impl` or Swift extension carries its type's name, and a
   * prototype (signature ending in `;`) its function's, so with many of
   * them, in paths that sort first, the definition asked for fell past the
   * limit. Then prefix matches, shortest name first.
   */
  lookup(name: string, opts?: SymbolLookupOptions): SymbolInfo[] {
    const limit = Math.floor(opts?.limit ?? 50);
    const needle = name.trim().toLowerCase();
    if (!(limit > 0) || needle === '') return [];
    const kindSql = opts?.kind === undefined ? '' : ' AND kind = @kind';
    const params: Record<string, unknown> = { needle, end: prefixEnd(needle) };
    if (opts?.kind !== undefined) params.kind = opts.kind;
    const exact = this.ctx
      .stmt(
        `SELECT * FROM symbols WHERE (name_lc = @needle OR qualified_lc = @needle)${kindSql}
         ORDER BY qualified_lc = @needle DESC, kind = 'impl', substr(signature, -1) = ';', path, start_line
         LIMIT ${limit}`,
      )
      .all(omit(params, 'end')) as SymbolRow[];
    if (exact.length >= limit) return exact.map(rowToSymbol);
    const prefix = this.ctx
      .stmt(
        `SELECT * FROM symbols
         WHERE ((name_lc >= @needle AND name_lc < @end) OR (qualified_lc >= @needle AND qualified_lc < @end))
           AND name_lc <> @needle AND qualified_lc <> @needle${kindSql}
         ORDER BY length(name), name_lc, path, start_line LIMIT ${limit - exact.length}`,
      )
      .all(params) as SymbolRow[];
    return [...exact, ...prefix].map(rowToSymbol);
  }

  /** The symbols defined in one file, in source order (outer before inner at the same line). */
  inFile(path: string): SymbolInfo[] {
    return (
      this.ctx
        .stmt('SELECT * FROM symbols WHERE path = ? ORDER BY start_line, end_line DESC, name')
        .all(path) as SymbolRow[]
    ).map(rowToSymbol);
  }

  /**
   * inFile for several files in one statement (a search widens the hits of
   * some 30 files: one statement each cost several times this), each list
   * in inFile's order; a path without symbols maps to an empty list.
   */
  inFiles(paths: readonly string[]): Map<string, SymbolInfo[]> {
    const out = new Map<string, SymbolInfo[]>(paths.map((p) => [p, []]));
    if (out.size === 0) return out;
    const rows = this.ctx
      .stmt(
        `SELECT * FROM symbols WHERE path IN (SELECT value FROM json_each(?))
         ORDER BY path, start_line, end_line DESC, name`,
      )
      .all(JSON.stringify([...out.keys()])) as SymbolRow[];
    for (const r of rows) out.get(r.path)?.push(rowToSymbol(r));
    return out;
  }

  /** The symbols whose name parts (2 points) or doc words (1) match the words' stems, best first, one per name. */
  related(words: readonly string[], opts?: { limit?: number }): SymbolInfo[] {
    const limit = Math.floor(opts?.limit ?? 40);
    const needles = [...new Set(words.map((w) => w.toLowerCase()).filter((w) => w.length >= 3))];
    if (!(limit > 0) || needles.length === 0) return [];
    const best = this.stems.top(needles, limit);
    if (best.length === 0) return [];
    const byRowid = new Map<number, SymbolRow>();
    for (const batch of chunked(
      best.map((b) => b.rowid),
      IN_BATCH,
    )) {
      const rows = this.ctx
        .stmt(`SELECT rowid, * FROM symbols WHERE rowid IN (${sqlList(batch.length)})`)
        .all(...batch) as (SymbolRow & { rowid: number })[];
      for (const r of rows) byRowid.set(r.rowid, r);
    }
    return best.flatMap((b) => {
      const row = byRowid.get(b.rowid);
      return row ? [rowToSymbol(row)] : [];
    });
  }

  vocabulary(opts?: VocabularyOptions): { name: string; count: number }[] {
    const limit = Math.floor(opts?.limit ?? 1000);
    if (!(limit > 0)) return [];
    const prefix = (opts?.prefix ?? '').toLowerCase();
    const where = prefix === '' ? '' : 'WHERE name_lc >= ? AND name_lc < ?';
    const params = prefix === '' ? [] : [prefix, prefixEnd(prefix)];
    return this.ctx
      .stmt(
        `SELECT name, count(*) AS count FROM symbols ${where}
         GROUP BY name ORDER BY count DESC, name LIMIT ?`,
      )
      .all(...params, limit) as { name: string; count: number }[];
  }
}
