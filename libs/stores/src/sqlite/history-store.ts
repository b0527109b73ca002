/**
 * The repository's change history: each recent commit's message and the
 * indexed files it changed. A question in a report's words often resembles
 * how an earlier change to the same code was described ("not found handler
 * for unsupported methods" beside the commit that last touched the 404
 * path), so the commits whose messages match a query name files the code
 * side may rank too low (history-prior.ts in @codesift/search turns them
 * into a file prior).
 *
 * - history_commits(seq, sha, time, paths): `paths` a JSON array of the
 *   commit's changed paths, relative to the index root;
 * - history_fts: contentless FTS5 over the analyzed message, rowid = seq;
 * - history_paths(path, commits): how many of the stored commits changed
 *   each path (a file most changes touch says little about any one);
 * - meta `history_head`: the commit the history was read at, so a run at
 *   the same HEAD reads nothing.
 *
 * Created by the first write; an index without them has no history, and a
 * reader then finds nothing.
 */
import { analyze } from '@codesift/analysis';
import type { HistoryCommit, HistoryIndex, HistoryMatch } from '../ports.js';
import { guard } from './corruption.js';
import { SqliteDatabase } from './native.js';
import { checkVersions, FTS_TOKENIZE, getMetaValue, setMetaValue } from './schema.js';
import { configureConnection, type SqliteContext, StatementCache } from './sql.js';

export const HISTORY_TABLES = `
CREATE TABLE IF NOT EXISTS history_commits (
  seq INTEGER PRIMARY KEY, sha TEXT NOT NULL, time INTEGER NOT NULL, paths TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(
  message, content='', tokenize="${FTS_TOKENIZE}"
);
CREATE TABLE IF NOT EXISTS history_paths (
  path TEXT PRIMARY KEY, commits INTEGER NOT NULL
) WITHOUT ROWID;
`;

const HEAD_KEY = 'history_head';

/** FTS5 MATCH of any of `terms`, each quoted as one token. */
function anyOf(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

export class HistoryStore {
  private present = false;

  constructor(private readonly ctx: SqliteContext) {}

  /**
   * Whether this index holds a history, in this version's tables. Once seen
   * it is remembered; until then asked again each time (a few microseconds),
   * so a long-lived reader (serve, MCP) sees the history an index run adds.
   * A history written before history_paths existed counts as none, so the
   * next index run reads it again.
   */
  private hasTables(): boolean {
    if (!this.present) {
      const row = this.ctx
        .stmt(
          "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('history_commits', 'history_paths')",
        )
        .get() as { n: number };
      this.present = row.n === 2;
    }
    return this.present;
  }

  /** The commit the stored history was read at; null when none was stored. */
  head(): string | null {
    return this.hasTables() ? getMetaValue(this.ctx, HEAD_KEY) : null;
  }

  /** Replaces the stored history (call inside a transaction). Paths are kept as given. */
  replace(commits: readonly HistoryCommit[], head: string): void {
    this.ctx.db.exec(HISTORY_TABLES);
    this.present = true;
    this.ctx.stmt('DELETE FROM history_commits').run();
    this.ctx.stmt('DELETE FROM history_paths').run();
    this.ctx.stmt("INSERT INTO history_fts(history_fts) VALUES ('delete-all')").run();
    const commit = this.ctx.stmt(
      'INSERT INTO history_commits(seq, sha, time, paths) VALUES (?, ?, ?, ?)',
    );
    const text = this.ctx.stmt('INSERT INTO history_fts(rowid, message) VALUES (?, ?)');
    const changes = new Map<string, number>();
    let seq = 0;
    for (const c of commits) {
      seq++;
      commit.run(seq, c.sha, c.time, JSON.stringify(c.paths));
      text.run(seq, analyze(c.message).join(' '));
      for (const p of new Set(c.paths)) changes.set(p, (changes.get(p) ?? 0) + 1);
    }
    const path = this.ctx.stmt('INSERT INTO history_paths(path, commits) VALUES (?, ?)');
    for (const [p, n] of changes) path.run(p, n);
    setMetaValue(this.ctx, HEAD_KEY, head);
  }

  /**
   * The `limit` commits whose messages best match any of `terms` (analyzer
   * terms, as the keyword side runs them), best first by BM25, each with
   * the changed paths the index still holds.
   */
  similar(terms: readonly string[], limit: number): HistoryMatch[] {
    if (terms.length === 0 || !(limit > 0) || !this.hasTables()) return [];
    // One statement: the best commits, each joined with its changed paths the index holds.
    const rows = this.ctx
      .stmt(
        `WITH best(seq, score) AS MATERIALIZED (
           SELECT rowid, -rank FROM history_fts WHERE history_fts MATCH ? ORDER BY rank LIMIT ?)
         SELECT best.seq AS seq, best.score AS score, h.sha AS sha, h.time AS time,
                f.path AS path, hp.commits AS changes
         FROM best JOIN history_commits h ON h.seq = best.seq
         LEFT JOIN json_each(h.paths) j
         LEFT JOIN files f ON f.path = j.value
         LEFT JOIN history_paths hp ON hp.path = f.path
         ORDER BY best.score DESC, best.seq, f.path`,
      )
      .all(anyOf([...new Set(terms)]), Math.floor(limit)) as {
      seq: number;
      score: number;
      sha: string;
      time: number;
      path: string | null;
      changes: number | null;
    }[];
    const matches: HistoryMatch[] = [];
    const stored = rows.length > 0 ? this.count() : 0;
    let last = -1;
    for (const r of rows) {
      if (r.seq !== last) {
        matches.push({ sha: r.sha, time: r.time, score: r.score, files: [], stored });
        last = r.seq;
      }
      if (r.path !== null)
        matches[matches.length - 1]!.files.push({ path: r.path, commits: r.changes ?? 1 });
    }
    return matches;
  }

  /** Commits stored. */
  count(): number {
    if (!this.hasTables()) return 0;
    return (this.ctx.stmt('SELECT count(*) AS n FROM history_commits').get() as { n: number }).n;
  }
}

/**
 * The history of the existing index at `file` alone, for a caller that
 * changes nothing else (an evaluation giving a cached index its checkout's
 * history). Unlike closing a LocalIndex writer, closing it flushes nothing:
 * no graph, no bridge counts, whose first flush on an older index recounts
 * every chunk.
 */
export function openHistoryFile(file: string): HistoryIndex & { close(): void } {
  const db = new SqliteDatabase(file, { fileMustExist: true });
  try {
    configureConnection(db, true);
    guard(file, () => checkVersions(db, file));
  } catch (err) {
    db.close();
    throw err;
  }
  const cache = new StatementCache(db);
  const store = new HistoryStore({ db, file, stmt: (sql) => cache.get(sql) });
  return {
    async similar(terms, limit) {
      return guard(file, () => store.similar(terms, limit));
    },
    async head() {
      return guard(file, () => store.head());
    },
    async replace(commits, head) {
      guard(file, () => db.transaction(() => store.replace(commits, head))());
    },
    close() {
      cache.clear();
      db.close();
    },
  };
}
