/**
 * file_texts(path, text): the text of files committed with one (the
 * cluster's writer), so a query service without the checkout serves
 * get_snippet from the index. A local index leaves the table empty and
 * reads its checkout. The table came after SCHEMA_VERSION 1: a writer's open
 * creates it (addTables), and a reader of an index without it finds no text.
 */
import type { SqliteContext } from './sql.js';

export const FILE_TEXTS_TABLE =
  'CREATE TABLE IF NOT EXISTS file_texts (path TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID';

export class FileTextStore {
  private present: boolean | undefined;

  constructor(private readonly ctx: SqliteContext) {}

  /** Inside a write: the file's text replaced, or dropped when the commit carries none. */
  replace(p: string, text: string | undefined): void {
    this.ctx.stmt('DELETE FROM file_texts WHERE path = ?').run(p);
    if (text !== undefined) {
      this.ctx.stmt('INSERT INTO file_texts(path, text) VALUES (?, ?)').run(p, text);
    }
  }

  remove(paths: readonly string[]): void {
    const del = this.ctx.stmt('DELETE FROM file_texts WHERE path = ?');
    for (const p of paths) del.run(p);
  }

  get(p: string): string | undefined {
    if (!this.hasTable()) return undefined;
    const row = this.ctx.stmt('SELECT text FROM file_texts WHERE path = ?').get(p) as
      | { text: string }
      | undefined;
    return row?.text;
  }

  /** Which of `paths` have a stored text, in one statement and without reading the texts. */
  stored(paths: readonly string[]): Set<string> {
    if (!this.hasTable()) return new Set();
    const rows = this.ctx
      .stmt('SELECT path FROM file_texts WHERE path IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(paths)) as { path: string }[];
    return new Set(rows.map((r) => r.path));
  }

  /** A read-only open of an index written before the table existed has none; checked once. */
  private hasTable(): boolean {
    this.present ??=
      this.ctx
        .stmt("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_texts'")
        .get() !== undefined;
    return this.present;
  }
}
