/**
 * Schema (SCHEMA_VERSION), creation, version checks and the meta table.
 *
 * - meta(key, value): schema_version, analyzer_version, embedder,
 *   dimensions, created_at, updated_at, root; plus index_uid and
 *   vector_generation, which tie the derived HNSW file to this database
 *   (see hnsw-cache.ts). They are plain meta rows, not schema: an index
 *   written before they existed simply has no usable HNSW until a writer
 *   opens it.
 * - files: the manifest, one row per indexed file.
 * - chunks: raw chunk rows (content, context, signature, doc, and who wrote
 *   the context: context_source, context_fallback) keyed by an
 *   AUTOINCREMENT `seq` that is also the FTS rowid. The two context_ columns
 *   came later: addColumns gives an older index them when a writer opens it,
 *   and a reader of an index without them reads every source as not
 *   recorded, so neither needs a rebuild or a schema version.
 * - chunks_fts: contentless FTS5 (content='', contentless_delete=1) over
 *   analyzer output, pre-tokenised in JS and stored space-joined, in four
 *   columns: code, symbol (+signature), path, context. Contentless so text
 *   is stored once (in chunks); AUTOINCREMENT because a contentless table
 *   does not check rowids, and a reused rowid must never meet stale postings.
 * - vector_rows (seq, id, path, language) + chunk_vectors, a vec0 table
 *   `float[dims] distance_metric=cosine` with `language` as a metadata
 *   column, created by setEmbedder. vector_rows maps chunk ids to vec0
 *   rowids and carries the path for deletes and path filters. `seq` is
 *   AUTOINCREMENT too, so it is never reused and can key the HNSW.
 * - symbols: one row per SymbolInfo, with lowercased name and qualified
 *   name columns, indexed, for case-insensitive exact and prefix lookup.
 * - file_texts (file-text-store.ts): texts of files committed with one;
 *   added after version 1 like the context_ columns (addColumns creates it).
 * - bridge_assoc + bridge_words (bridge-assoc.ts): the offline bridge's
 *   word–identifier counts, derived from the chunks; created by a writer's
 *   flush, and readers without them (or with the meta row `bridge_assoc`
 *   not 'current') count from the postings instead.
 */
import { randomUUID } from 'node:crypto';
import { ANALYZER_VERSION } from '@codesift/analysis';
import { CodesiftError } from '@codesift/core';
import type { IndexMeta } from '../local-index.js';
import { FILE_TEXTS_TABLE } from './file-text-store.js';
import type { Db, SqliteContext } from './sql.js';

export const SCHEMA_VERSION = 1;

/** The FTS5 tokenizer of every keyword table: analyzer output, split on spaces only. */
export const FTS_TOKENIZE =
  "unicode61 remove_diacritics 0 categories 'L* N* Co M*' tokenchars '_$.-/:'";

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE files (
  path TEXT PRIMARY KEY, hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms REAL NOT NULL,
  language TEXT NOT NULL, chunk_count INTEGER NOT NULL, symbol_count INTEGER NOT NULL,
  indexed_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE chunks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
  language TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, symbol TEXT,
  kind TEXT NOT NULL, content TEXT NOT NULL, context TEXT, signature TEXT, doc TEXT,
  context_source TEXT, context_fallback TEXT
);
CREATE INDEX chunks_path ON chunks(path);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  code, symbol, path, context, content='', contentless_delete=1, tokenize="${FTS_TOKENIZE}"
);
CREATE TABLE vector_rows (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
  language TEXT NOT NULL
);
CREATE INDEX vector_rows_path ON vector_rows(path);
CREATE TABLE symbols (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, name_lc TEXT NOT NULL, qualified_name TEXT NOT NULL,
  qualified_lc TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL, language TEXT NOT NULL,
  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, parent TEXT, signature TEXT NOT NULL,
  doc TEXT NOT NULL
);
CREATE INDEX symbols_name ON symbols(name_lc);
CREATE INDEX symbols_qualified ON symbols(qualified_lc);
CREATE INDEX symbols_path ON symbols(path);
`;

export function initSchema(db: Db): void {
  const now = String(Date.now());
  db.transaction(() => {
    db.exec(SCHEMA);
    db.exec(FILE_TEXTS_TABLE);
    const put = db.prepare('INSERT INTO meta(key, value) VALUES (?, ?)');
    put.run('schema_version', String(SCHEMA_VERSION));
    put.run('analyzer_version', String(ANALYZER_VERSION));
    put.run('embedder', null);
    put.run('dimensions', null);
    put.run('created_at', now);
    put.run('updated_at', now);
    put.run('index_uid', randomUUID());
    put.run('vector_generation', '0');
  })();
}

/** Columns added after SCHEMA_VERSION 1 shipped: nullable, so old rows read as not recorded. */
const ADDED_COLUMNS: readonly { table: string; column: string; type: string }[] = [
  { table: 'chunks', column: 'context_source', type: 'TEXT' },
  { table: 'chunks', column: 'context_fallback', type: 'TEXT' },
];

/** A writer's open: adds the columns and tables an index written before them lacks. */
export function addColumns(db: Db): void {
  db.transaction(() => {
    db.exec(FILE_TEXTS_TABLE);
    for (const { table, column, type } of ADDED_COLUMNS) {
      const have = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      if (!have.some((c) => c.name === column)) {
        db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
      }
    }
  })();
}

export function checkVersions(db: Db, file: string): void {
  const get = (k: string): number => {
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(k) as
      | { value: string | null }
      | undefined;
    return Number(row?.value ?? 0);
  };
  const schema = get('schema_version');
  if (schema !== SCHEMA_VERSION) {
    const which = schema > SCHEMA_VERSION ? 'a newer' : 'an older';
    throw new CodesiftError(
      'INDEX_INCOMPATIBLE',
      `index ${file} has schema version ${schema}, this codesift uses ${SCHEMA_VERSION}`,
      {
        hint:
          schema > SCHEMA_VERSION
            ? `it was written by ${which} codesift: upgrade codesift or run \`codesift index --rebuild\``
            : `it was written by ${which} codesift: run \`codesift index --rebuild\``,
      },
    );
  }
  const analyzer = get('analyzer_version');
  if (analyzer !== ANALYZER_VERSION) {
    throw new CodesiftError(
      'INDEX_INCOMPATIBLE',
      `index ${file} was built with analyzer version ${analyzer}, this codesift uses ${ANALYZER_VERSION}`,
      { hint: 'run `codesift index --rebuild`' },
    );
  }
}

export function setMetaValue(ctx: SqliteContext, key: string, value: string | null): void {
  ctx
    .stmt(
      'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    )
    .run(key, value);
}

export function getMetaValue(ctx: SqliteContext, key: string): string | null {
  const row = ctx.stmt('SELECT value FROM meta WHERE key = ?').get(key) as
    | { value: string | null }
    | undefined;
  return row?.value ?? null;
}

export function readMeta(ctx: SqliteContext): IndexMeta {
  const rows = ctx.stmt('SELECT key, value FROM meta').all() as {
    key: string;
    value: string | null;
  }[];
  const m = new Map(rows.map((r) => [r.key, r.value]));
  const num = (k: string): number | null => {
    const v = m.get(k);
    return v === undefined || v === null ? null : Number(v);
  };
  return {
    schemaVersion: num('schema_version') ?? 0,
    analyzerVersion: num('analyzer_version') ?? 0,
    embedder: m.get('embedder') ?? null,
    dimensions: num('dimensions'),
    createdAt: num('created_at') ?? 0,
    updatedAt: num('updated_at') ?? 0,
    root: m.get('root') ?? null,
    repositories: parseRepositories(m.get('repositories') ?? null),
  };
}

/** The `repositories` meta value: a JSON object of name -> directory (absent: none). */
function parseRepositories(value: string | null): Record<string, string> {
  if (value === null) return {};
  const parsed: unknown = JSON.parse(value);
  const out: Record<string, string> = {};
  if (parsed !== null && typeof parsed === 'object') {
    for (const [name, root] of Object.entries(parsed))
      if (typeof root === 'string') out[name] = root;
  }
  return out;
}

/**
 * Which state of the vectors a reader sees: `uid` names this database
 * (a rebuilt index gets a new one, so an old HNSW file next to it never
 * matches), `generation` counts committed writes that touched vectors.
 * `uid` is null for an index written before these existed.
 */
export interface VectorGeneration {
  uid: string | null;
  generation: number;
}

export function readVectorGeneration(ctx: SqliteContext): VectorGeneration {
  const uid = getMetaValue(ctx, 'index_uid');
  const gen = Number(getMetaValue(ctx, 'vector_generation') ?? 0);
  return { uid, generation: Number.isFinite(gen) ? gen : 0 };
}

/** Inside a write transaction: the vectors changed. Returns the new generation. */
export function bumpVectorGeneration(ctx: SqliteContext): VectorGeneration {
  let uid = getMetaValue(ctx, 'index_uid');
  if (uid === null) {
    uid = randomUUID();
    setMetaValue(ctx, 'index_uid', uid);
  }
  const next = readVectorGeneration(ctx).generation + 1;
  setMetaValue(ctx, 'vector_generation', String(next));
  return { uid, generation: next };
}
