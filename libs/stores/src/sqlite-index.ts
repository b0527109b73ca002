/**
 * The local index: every store port over one SQLite file (WAL), with FTS5
 * for BM25 and sqlite-vec for vectors.
 *
 * Schema (SCHEMA_VERSION):
 * - meta(key, value): schema_version, analyzer_version, embedder,
 *   dimensions, created_at, updated_at.
 * - files: the manifest, one row per indexed file.
 * - chunks: raw chunk rows (content, context, signature, doc) keyed by an
 *   AUTOINCREMENT `seq` that is also the FTS rowid.
 * - chunks_fts: contentless FTS5 (content='', contentless_delete=1) over
 *   analyzer output, pre-tokenised in JS and stored space-joined, in four
 *   columns: code, symbol (+signature), path, context. Contentless so text
 *   is stored once (in chunks); AUTOINCREMENT because a contentless table
 *   does not check rowids, and a reused rowid must never meet stale postings.
 * - vector_rows (seq, id, path, language) + chunk_vectors, a vec0 table
 *   `float[dims] distance_metric=cosine` with `language` as a metadata
 *   column, created by setEmbedder. vector_rows maps chunk ids to vec0
 *   rowids and carries the path for deletes and path filters.
 * - symbols: one row per SymbolInfo, with lowercased name and qualified
 *   name columns, indexed, for case-insensitive exact and prefix lookup.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { ANALYZER_VERSION, analyze } from '@codesift/analysis';
import {
  type Chunk,
  CodesiftError,
  errorMessage,
  type FileRecord,
  type SymbolInfo,
  type UnitKind,
} from '@codesift/core';
import Database from 'better-sqlite3';
import { load as loadSqliteVec } from 'sqlite-vec';
import { groupByBoost, normalizeTerms, type WeightedTerm } from './fts-query.js';
import type { FileCommit, IndexMeta, IndexStats, LocalIndex } from './local-index.js';
import type {
  ChunkStore,
  KeywordDoc,
  KeywordHit,
  KeywordIndex,
  KeywordQuery,
  Manifest,
  SearchFilter,
  SymbolIndex,
  SymbolLookupOptions,
  VectorHit,
  VectorIndex,
  VectorQuery,
  VectorRecord,
  VocabularyOptions,
} from './ports.js';

type Db = Database.Database;
type Statement = Database.Statement;

export const SCHEMA_VERSION = 1;

/**
 * bm25() column weights, in column order code, symbol, path, context.
 * A name match (symbol/signature) is the strongest signal, a path match
 * next; generated context is prose about the code, so it counts half of
 * the code itself. FTS5 multiplies hit counts by these before BM25's term
 * frequency saturation, so the effective ratio is smaller than the weights.
 */
export const BM25_WEIGHTS = { code: 1, symbol: 3, path: 2, context: 0.5 } as const;

/** Queries with more unique terms keep the most useful MAX_KEYWORD_TERMS (see pruneTerms). */
export const MAX_KEYWORD_TERMS = 64;

/** sqlite-vec refuses k above this. */
const MAX_KNN = 4096;
/** Filtered vector search below this many candidate rows reads them directly instead of running KNN. */
const DIRECT_SCAN_MAX = 1000;
/** Rows per `IN (...)` list, well under SQLite's parameter limit. */
const IN_BATCH = 500;

const FTS_TOKENIZE = "unicode61 remove_diacritics 0 categories 'L* N* Co M*' tokenchars '_$.-/:'";

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
  kind TEXT NOT NULL, content TEXT NOT NULL, context TEXT, signature TEXT, doc TEXT
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

const REBUILD_HINT = 'delete the .codesift directory or run `codesift index --rebuild`';

export interface OpenSqliteIndexOptions {
  /** Open read-only (queries only). Default false. */
  readonly?: boolean;
  /** Create the file (and its directory) when missing. Default: true unless readonly. */
  create?: boolean;
}

/** Where the local index lives for a root: `<root>/.codesift/index.db`. */
export function defaultIndexPath(root: string): string {
  return path.join(root, '.codesift', 'index.db');
}

function isCorruptionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
  );
}

function corrupt(file: string, cause?: unknown): CodesiftError {
  const detail = cause === undefined ? '' : `: ${errorMessage(cause)}`;
  return new CodesiftError('INDEX_CORRUPT', `index ${file} is corrupt${detail}`, {
    hint: REBUILD_HINT,
    cause,
  });
}

/** Runs `fn`, turning SQLite corruption errors into INDEX_CORRUPT. */
function guard<T>(file: string, fn: () => T): T {
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
function checkHeader(file: string): boolean {
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

function sqlList(n: number): string {
  return new Array<string>(n).fill('?').join(',');
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** SQL condition (or '' for none) for a SearchFilter on a table alias with `path` and `language`. */
function filterSql(alias: string, filter: SearchFilter | undefined, params: unknown[]): string {
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

function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

interface ChunkRow {
  seq: number;
  id: string;
  path: string;
  language: string;
  start_line: number;
  end_line: number;
  symbol: string | null;
  kind: string;
  content: string;
  context: string | null;
  signature: string | null;
  doc: string | null;
}

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

/** What the chunks table stores: a KeywordDoc or a full Chunk (which adds `doc`, optional `context`). */
type StoredChunk = Omit<KeywordDoc, 'context'> & {
  context?: string | null | undefined;
  doc?: string | undefined;
};

function rowToChunk(r: ChunkRow): Chunk {
  const c: Chunk = {
    id: r.id,
    path: r.path,
    language: r.language,
    startLine: r.start_line,
    endLine: r.end_line,
    symbol: r.symbol,
    kind: r.kind as UnitKind,
    content: r.content,
  };
  if (r.signature !== null) c.signature = r.signature;
  if (r.doc !== null) c.doc = r.doc;
  if (r.context !== null) c.context = r.context;
  return c;
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

/** better-sqlite3 refuses named parameters the statement does not use. */
function omit(params: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _, ...rest } = params;
  return rest;
}

/** Upper bound for a prefix range scan: every string starting with `p` sorts below it. */
function prefixEnd(p: string): string {
  return `${p}\u{10FFFF}`;
}

class SqliteIndex implements LocalIndex {
  readonly keyword: KeywordIndex;
  readonly vectors: VectorIndex;
  readonly symbols: SymbolIndex;
  readonly manifest: Manifest;
  readonly chunks: ChunkStore;

  private readonly stmts = new Map<string, Statement>();
  private dims: number | null;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly file: string,
    private readonly readonly: boolean,
  ) {
    this.dims = this.readMeta().dimensions;
    const self = this;
    this.keyword = {
      async upsert(docs) {
        self.write(() => self.upsertChunks(docs));
      },
      async deleteByPaths(paths) {
        self.write(() => self.deleteChunksByPaths(paths));
      },
      async search(q) {
        return self.read(() => self.searchKeyword(q));
      },
      async count() {
        return self.read(() => self.countRows('chunks'));
      },
    };
    this.vectors = {
      async upsert(records) {
        self.write(() => self.upsertVectors(records));
      },
      async deleteByPaths(paths) {
        self.write(() => self.deleteVectorsByPaths(paths));
      },
      async search(q) {
        return self.read(() => self.searchVectors(q));
      },
      async count() {
        return self.read(() => self.countRows('vector_rows'));
      },
    };
    this.symbols = {
      async upsert(symbols) {
        self.write(() => self.upsertSymbols(symbols));
      },
      async deleteByPaths(paths) {
        self.write(() => self.deleteSymbolsByPaths(paths));
      },
      async lookup(name, opts) {
        return self.read(() => self.lookupSymbols(name, opts));
      },
      async vocabulary(opts) {
        return self.read(() => self.symbolVocabulary(opts));
      },
      async count() {
        return self.read(() => self.countRows('symbols'));
      },
    };
    this.manifest = {
      async get(p) {
        return self.read(() => {
          const row = self.stmt('SELECT * FROM files WHERE path = ?').get(p) as FileRow | undefined;
          return row ? rowToFile(row) : undefined;
        });
      },
      async all() {
        return self.read(() => {
          const rows = self.stmt('SELECT * FROM files ORDER BY path').all() as FileRow[];
          return new Map(rows.map((r) => [r.path, rowToFile(r)]));
        });
      },
      async put(records) {
        self.write(() => {
          for (const r of records) self.putFile(r);
        });
      },
      async remove(paths) {
        self.write(() => {
          for (const p of paths) self.stmt('DELETE FROM files WHERE path = ?').run(p);
        });
      },
    };
    this.chunks = {
      async get(ids) {
        return self.read(() => self.getChunks(ids));
      },
    };
  }

  // ---- plumbing ----

  private stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      // Dynamic SQL (filters, term groups) varies; keep the cache bounded.
      if (this.stmts.size > 500) this.stmts.clear();
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private ensureOpen(): void {
    if (this.closed) throw new CodesiftError('INVALID_ARGUMENT', `index ${this.file} is closed`);
  }

  private read<T>(fn: () => T): T {
    this.ensureOpen();
    return guard(this.file, fn);
  }

  /** One transaction per call; nested calls join the outer transaction. */
  private write(fn: () => void): void {
    this.ensureOpen();
    if (this.readonly) {
      throw new CodesiftError('INVALID_ARGUMENT', `index ${this.file} was opened read-only`);
    }
    guard(this.file, () =>
      this.db.transaction(() => {
        fn();
        this.setMetaValue('updated_at', String(Date.now()));
      })(),
    );
  }

  private countRows(table: 'chunks' | 'vector_rows' | 'symbols' | 'files'): number {
    return (this.stmt(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  }

  private setMetaValue(key: string, value: string | null): void {
    this.stmt(
      'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    ).run(key, value);
  }

  private readMeta(): IndexMeta {
    const rows = this.db.prepare('SELECT key, value FROM meta').all() as {
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
    };
  }

  private hasVectorTable(): boolean {
    return this.dims !== null;
  }

  // ---- chunks + keyword ----

  private insertChunk(doc: StoredChunk): void {
    const old = this.stmt('SELECT seq FROM chunks WHERE id = ?').get(doc.id) as
      | { seq: number }
      | undefined;
    if (old) {
      this.stmt('DELETE FROM chunks_fts WHERE rowid = ?').run(old.seq);
      this.stmt('DELETE FROM chunks WHERE seq = ?').run(old.seq);
    }
    const info = this.stmt(
      `INSERT INTO chunks(id, path, language, start_line, end_line, symbol, kind, content, context, signature, doc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      doc.id,
      doc.path,
      doc.language,
      doc.startLine,
      doc.endLine,
      doc.symbol,
      doc.kind,
      doc.content,
      doc.context ?? null,
      doc.signature ?? null,
      doc.doc ?? null,
    );
    const symbolText =
      doc.symbol === null ? (doc.signature ?? '') : `${doc.symbol}\n${doc.signature ?? ''}`;
    this.stmt(
      'INSERT INTO chunks_fts(rowid, code, symbol, path, context) VALUES (?, ?, ?, ?, ?)',
    ).run(
      info.lastInsertRowid,
      analyze(doc.content).join(' '),
      analyze(symbolText).join(' '),
      this.analyzedPath(doc.path),
      analyze(doc.context ?? '').join(' '),
    );
  }

  private lastPath = '';
  private lastPathTerms = '';
  /** Every chunk of a file shares its path; analyze it once per run of chunks. */
  private analyzedPath(p: string): string {
    if (p !== this.lastPath) {
      this.lastPath = p;
      this.lastPathTerms = analyze(p).join(' ');
    }
    return this.lastPathTerms;
  }

  private upsertChunks(docs: readonly StoredChunk[]): void {
    for (const d of docs) this.insertChunk(d);
  }

  private deleteChunksByPaths(paths: readonly string[]): void {
    for (const p of paths) {
      const rows = this.stmt('SELECT seq FROM chunks WHERE path = ?').all(p) as { seq: number }[];
      for (const r of rows) this.stmt('DELETE FROM chunks_fts WHERE rowid = ?').run(r.seq);
      this.stmt('DELETE FROM chunks WHERE path = ?').run(p);
    }
  }

  /**
   * Long queries (a pasted snippet) keep the MAX_KEYWORD_TERMS most useful
   * terms: terms the index lacks are dropped (they match nothing), then
   * terms whose BM25 IDF is zero (in half the chunks or more) go last, then
   * higher boost, then rarer first.
   */
  private pruneTerms(terms: WeightedTerm[]): WeightedTerm[] {
    this.db.exec(
      'CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)',
    );
    const df = new Map<string, number>();
    for (const batch of chunked(terms, IN_BATCH)) {
      const rows = this.stmt(
        `SELECT term, doc FROM temp.chunks_vocab WHERE term IN (${sqlList(batch.length)})`,
      ).all(...batch.map((t) => t.term)) as { term: string; doc: number }[];
      for (const r of rows) df.set(r.term, r.doc);
    }
    const total = this.countRows('chunks');
    return terms
      .filter((t) => (df.get(t.term) ?? 0) > 0)
      .map((t) => ({ t, df: df.get(t.term)!, useful: df.get(t.term)! * 2 < total }))
      .sort((a, b) => Number(b.useful) - Number(a.useful) || b.t.boost - a.t.boost || a.df - b.df)
      .slice(0, MAX_KEYWORD_TERMS)
      .map((x) => x.t);
  }

  private searchKeyword(q: KeywordQuery): KeywordHit[] {
    const limit = Math.floor(q.limit);
    if (!(limit > 0)) return [];
    let terms = normalizeTerms(q.terms);
    if (terms.length > MAX_KEYWORD_TERMS) terms = this.pruneTerms(terms);
    if (terms.length === 0) return [];
    const groups = groupByBoost(terms);
    const w = BM25_WEIGHTS;
    const bm25 = `bm25(chunks_fts, ${w.code}, ${w.symbol}, ${w.path}, ${w.context})`;
    const params: unknown[] = [];
    // bm25() is lower-is-better; negate and scale by the boost so higher is better.
    const sub = groups.map((g) => {
      params.push(g.boost, g.match);
      return `SELECT rowid AS seq, -${bm25} * ? AS score FROM chunks_fts WHERE chunks_fts MATCH ?`;
    });
    const scored =
      sub.length === 1
        ? sub[0]!
        : `SELECT seq, sum(score) AS score FROM (${sub.join(' UNION ALL ')}) GROUP BY seq`;
    const where = filterSql('c', q.filter, params);
    const cols =
      'c.id, c.path, c.start_line, c.end_line, c.symbol, c.kind, c.language, s.score AS score';
    let sql: string;
    if (where === '') {
      // No filter: take the top k before joining, so only k chunk rows are read.
      sql = `SELECT ${cols} FROM (${scored} ORDER BY score DESC, seq LIMIT ?) s
             JOIN chunks c ON c.seq = s.seq ORDER BY s.score DESC, s.seq`;
    } else {
      sql = `SELECT ${cols} FROM (${scored}) s JOIN chunks c ON c.seq = s.seq
             WHERE ${where} ORDER BY s.score DESC, s.seq LIMIT ?`;
    }
    params.push(limit);
    const rows = this.stmt(sql).all(...params) as (Omit<ChunkRow, 'content'> & { score: number })[];
    return rows.map((r) => ({
      id: r.id,
      path: r.path,
      startLine: r.start_line,
      endLine: r.end_line,
      symbol: r.symbol,
      kind: r.kind,
      language: r.language,
      score: r.score,
    }));
  }

  private getChunks(ids: readonly string[]): Chunk[] {
    const byId = new Map<string, Chunk>();
    const unique = [...new Set(ids)];
    for (const batch of chunked(unique, IN_BATCH)) {
      const rows = this.stmt(`SELECT * FROM chunks WHERE id IN (${sqlList(batch.length)})`).all(
        ...batch,
      ) as ChunkRow[];
      for (const r of rows) byId.set(r.id, rowToChunk(r));
    }
    return unique.flatMap((id) => byId.get(id) ?? []);
  }

  // ---- vectors ----

  private requireDims(): number {
    if (this.dims === null) {
      throw new CodesiftError('INVALID_ARGUMENT', 'this index stores no vectors', {
        hint: 'set an embedder (setEmbedder) before writing vectors',
      });
    }
    return this.dims;
  }

  private checkVector(v: Float32Array, dims: number, what: string): void {
    if (!(v instanceof Float32Array) || v.length !== dims) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `${what} has ${v?.length ?? 'no'} dimensions; the index expects ${dims}`,
      );
    }
  }

  private insertVector(r: VectorRecord, dims: number): void {
    this.checkVector(r.vector, dims, `vector for ${r.id}`);
    const old = this.stmt('SELECT seq FROM vector_rows WHERE id = ?').get(r.id) as
      | { seq: number }
      | undefined;
    if (old) {
      this.stmt('DELETE FROM chunk_vectors WHERE rowid = ?').run(BigInt(old.seq));
      this.stmt('DELETE FROM vector_rows WHERE seq = ?').run(old.seq);
    }
    const info = this.stmt('INSERT INTO vector_rows(id, path, language) VALUES (?, ?, ?)').run(
      r.id,
      r.path,
      r.language,
    );
    // vec0 accepts only integer rowids; a JS number may bind as REAL, a BigInt never does.
    this.stmt('INSERT INTO chunk_vectors(rowid, embedding, language) VALUES (?, ?, ?)').run(
      BigInt(info.lastInsertRowid),
      vectorBlob(r.vector),
      r.language,
    );
  }

  private upsertVectors(records: readonly VectorRecord[]): void {
    if (records.length === 0) return;
    const dims = this.requireDims();
    for (const r of records) this.insertVector(r, dims);
  }

  private deleteVectorsByPaths(paths: readonly string[]): void {
    if (!this.hasVectorTable()) return;
    for (const p of paths) {
      const rows = this.stmt('SELECT seq FROM vector_rows WHERE path = ?').all(p) as {
        seq: number;
      }[];
      for (const r of rows)
        this.stmt('DELETE FROM chunk_vectors WHERE rowid = ?').run(BigInt(r.seq));
      this.stmt('DELETE FROM vector_rows WHERE path = ?').run(p);
    }
  }

  /**
   * Exact cosine KNN. A language filter runs inside vec0 (metadata column).
   * A path filter cannot, so: few candidates (<= DIRECT_SCAN_MAX) are read
   * directly and ranked; otherwise KNN over-fetches in proportion to how
   * selective the filter is and drops rows the filter rejects; if that
   * leaves fewer than `limit`, a scan over the filtered rows gives the exact
   * answer (slower, only when the filter's rows are far from the query).
   */
  private searchVectors(q: VectorQuery): VectorHit[] {
    const limit = Math.min(Math.floor(q.limit), MAX_KNN);
    if (!(limit > 0) || this.dims === null) return [];
    this.checkVector(q.vector, this.dims, 'query vector');
    const blob = vectorBlob(q.vector);
    const langs = q.filter?.languages ?? [];
    const langSql = langs.length > 0 ? ` AND language IN (${sqlList(langs.length)})` : '';
    const hasPathFilter =
      (q.filter?.pathPrefixes?.length ?? 0) > 0 || (q.filter?.excludePathPrefixes?.length ?? 0) > 0;

    const knn = (k: number, pathWhere: string, pathParams: unknown[]): VectorHit[] => {
      const sql = `WITH knn AS (
          SELECT rowid, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = ?${langSql}
        )
        SELECT r.id, r.path, 1 - knn.distance AS score FROM knn JOIN vector_rows r ON r.seq = knn.rowid
        ${pathWhere === '' ? '' : `WHERE ${pathWhere}`} ORDER BY knn.distance, r.seq LIMIT ?`;
      return this.stmt(sql).all(blob, k, ...langs, ...pathParams, limit) as VectorHit[];
    };

    if (!hasPathFilter) return knn(limit, '', []);

    const filterParams: unknown[] = [];
    const where = filterSql('r', q.filter, filterParams);
    const allowed = (
      this.stmt(`SELECT count(*) AS n FROM vector_rows r WHERE ${where}`).get(...filterParams) as {
        n: number;
      }
    ).n;
    if (allowed === 0) return [];
    const direct = (sql: string): VectorHit[] =>
      this.stmt(sql).all(blob, ...filterParams, limit) as VectorHit[];
    if (allowed <= DIRECT_SCAN_MAX) {
      return direct(`SELECT r.id, r.path, 1 - vec_distance_cosine(v.embedding, ?) AS score
        FROM vector_rows r JOIN chunk_vectors v ON v.rowid = r.seq
        WHERE ${where} ORDER BY score DESC, r.seq LIMIT ?`);
    }
    const langParams: unknown[] = [];
    const langWhere = filterSql('r', { languages: langs }, langParams);
    const pool = (
      this.stmt(
        `SELECT count(*) AS n FROM vector_rows r${langWhere === '' ? '' : ` WHERE ${langWhere}`}`,
      ).get(...langParams) as { n: number }
    ).n;
    const pathParams: unknown[] = [];
    const pathWhere = filterSql(
      'r',
      {
        pathPrefixes: q.filter?.pathPrefixes ?? [],
        excludePathPrefixes: q.filter?.excludePathPrefixes ?? [],
      },
      pathParams,
    );
    const k = Math.min(MAX_KNN, Math.max(limit * 2, Math.ceil(((limit * pool) / allowed) * 2)));
    const hits = knn(k, pathWhere, pathParams);
    if (hits.length >= limit || k >= pool) return hits;
    // `+v.rowid` keeps vec0 from doing per-row point lookups; a sequential scan is far cheaper here.
    const scored = this.stmt(`SELECT v.rowid AS seq, vec_distance_cosine(v.embedding, ?) AS d
        FROM chunk_vectors v WHERE +v.rowid IN (SELECT r.seq FROM vector_rows r WHERE ${where})
        ORDER BY d, seq LIMIT ?`);
    const top = scored.all(blob, ...filterParams, limit) as { seq: number; d: number }[];
    const idRow = this.stmt('SELECT id, path FROM vector_rows WHERE seq = ?');
    return top.map((t) => {
      const r = idRow.get(t.seq) as { id: string; path: string };
      return { id: r.id, path: r.path, score: 1 - t.d };
    });
  }

  // ---- symbols ----

  private upsertSymbols(symbols: readonly SymbolInfo[]): void {
    const ins = this.stmt(
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

  private deleteSymbolsByPaths(paths: readonly string[]): void {
    for (const p of paths) this.stmt('DELETE FROM symbols WHERE path = ?').run(p);
  }

  private lookupSymbols(name: string, opts?: SymbolLookupOptions): SymbolInfo[] {
    const limit = Math.floor(opts?.limit ?? 50);
    const needle = name.trim().toLowerCase();
    if (!(limit > 0) || needle === '') return [];
    const kindSql = opts?.kind === undefined ? '' : ' AND kind = @kind';
    const params: Record<string, unknown> = { needle, end: prefixEnd(needle) };
    if (opts?.kind !== undefined) params.kind = opts.kind;
    const exact = this.stmt(
      `SELECT * FROM symbols WHERE (name_lc = @needle OR qualified_lc = @needle)${kindSql}
       ORDER BY qualified_lc = @needle DESC, path, start_line LIMIT ${limit}`,
    ).all(omit(params, 'end')) as SymbolRow[];
    if (exact.length >= limit) return exact.map(rowToSymbol);
    const prefix = this.stmt(
      `SELECT * FROM symbols
       WHERE ((name_lc >= @needle AND name_lc < @end) OR (qualified_lc >= @needle AND qualified_lc < @end))
         AND name_lc <> @needle AND qualified_lc <> @needle${kindSql}
       ORDER BY length(name), name_lc, path, start_line LIMIT ${limit - exact.length}`,
    ).all(params) as SymbolRow[];
    return [...exact, ...prefix].map(rowToSymbol);
  }

  private symbolVocabulary(opts?: VocabularyOptions): { name: string; count: number }[] {
    const limit = Math.floor(opts?.limit ?? 1000);
    if (!(limit > 0)) return [];
    const prefix = (opts?.prefix ?? '').toLowerCase();
    const where = prefix === '' ? '' : 'WHERE name_lc >= ? AND name_lc < ?';
    const params = prefix === '' ? [] : [prefix, prefixEnd(prefix)];
    return this.stmt(
      `SELECT name, count(*) AS count FROM symbols ${where}
       GROUP BY name ORDER BY count DESC, name LIMIT ?`,
    ).all(...params, limit) as { name: string; count: number }[];
  }

  // ---- manifest ----

  private putFile(r: FileRecord): void {
    this.stmt(
      `INSERT INTO files(path, hash, size, mtime_ms, language, chunk_count, symbol_count, indexed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, size = excluded.size,
         mtime_ms = excluded.mtime_ms, language = excluded.language,
         chunk_count = excluded.chunk_count, symbol_count = excluded.symbol_count,
         indexed_at = excluded.indexed_at`,
    ).run(r.path, r.hash, r.size, r.mtimeMs, r.language, r.chunkCount, r.symbolCount, r.indexedAt);
  }

  // ---- LocalIndex ----

  meta(): IndexMeta {
    return this.read(() => this.readMeta());
  }

  private removeDerived(paths: readonly string[]): void {
    this.deleteChunksByPaths(paths);
    this.deleteVectorsByPaths(paths);
    this.deleteSymbolsByPaths(paths);
  }

  commitFiles(batch: FileCommit[]): void {
    this.write(() => {
      for (const f of batch) {
        const p = f.record.path;
        this.removeDerived([p]);
        if (f.vectors !== null) {
          const dims = this.requireDims();
          if (f.vectors.length !== f.chunks.length) {
            throw new CodesiftError(
              'INVALID_ARGUMENT',
              `${p}: ${f.vectors.length} vectors for ${f.chunks.length} chunks`,
            );
          }
          for (let i = 0; i < f.chunks.length; i++) {
            const c = f.chunks[i]!;
            this.insertVector(
              { id: c.id, path: c.path, language: c.language, vector: f.vectors[i]! },
              dims,
            );
          }
        }
        for (const c of f.chunks) this.insertChunk(c);
        this.upsertSymbols(f.symbols);
        this.putFile(f.record);
      }
    });
  }

  setRoot(root: string): void {
    if (this.meta().root === root) return;
    this.write(() => this.setMetaValue('root', root));
  }

  removeFiles(paths: string[]): void {
    this.write(() => {
      this.removeDerived(paths);
      for (const p of paths) this.stmt('DELETE FROM files WHERE path = ?').run(p);
    });
  }

  setEmbedder(name: string | null, dimensions: number | null): void {
    if ((name === null) !== (dimensions === null)) {
      throw new CodesiftError('INVALID_ARGUMENT', 'embedder name and dimensions go together');
    }
    if (
      dimensions !== null &&
      !(Number.isInteger(dimensions) && dimensions > 0 && dimensions <= 8192)
    ) {
      throw new CodesiftError('INVALID_ARGUMENT', `invalid vector dimensions: ${dimensions}`);
    }
    const current = this.meta();
    if (current.embedder === name && current.dimensions === dimensions) return;
    const empty =
      this.countRows('files') === 0 &&
      this.countRows('chunks') === 0 &&
      this.countRows('vector_rows') === 0;
    if (!empty) {
      const was =
        current.embedder === null ? 'no embedder' : `${current.embedder} (${current.dimensions}-d)`;
      const now = name === null ? 'no embedder' : `${name} (${dimensions}-d)`;
      throw new CodesiftError(
        'INDEX_INCOMPATIBLE',
        `index ${this.file} was built with ${was}, not ${now}`,
        {
          hint: 're-index with `codesift index --rebuild`',
        },
      );
    }
    this.write(() => {
      this.db.exec('DROP TABLE IF EXISTS chunk_vectors');
      if (dimensions !== null) {
        this.db.exec(
          `CREATE VIRTUAL TABLE chunk_vectors USING vec0(embedding float[${dimensions}] distance_metric=cosine, language text)`,
        );
      }
      this.setMetaValue('embedder', name);
      this.setMetaValue('dimensions', dimensions === null ? null : String(dimensions));
    });
    // Statements prepared against the dropped table are stale.
    this.stmts.clear();
    this.dims = dimensions;
  }

  stats(): IndexStats {
    return this.read(() => {
      let bytes = 0;
      if (this.file === ':memory:') {
        const pages = this.db.pragma('page_count', { simple: true }) as number;
        bytes = pages * (this.db.pragma('page_size', { simple: true }) as number);
      } else {
        for (const f of [this.file, `${this.file}-wal`]) {
          try {
            bytes += statSync(f).size;
          } catch {
            // A missing WAL is normal after a checkpoint.
          }
        }
      }
      return {
        files: this.countRows('files'),
        chunks: this.countRows('chunks'),
        symbols: this.countRows('symbols'),
        vectors: this.countRows('vector_rows'),
        bytes,
      };
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stmts.clear();
    this.db.close();
  }
}

function initSchema(db: Db): void {
  const now = String(Date.now());
  db.transaction(() => {
    db.exec(SCHEMA);
    const put = db.prepare('INSERT INTO meta(key, value) VALUES (?, ?)');
    put.run('schema_version', String(SCHEMA_VERSION));
    put.run('analyzer_version', String(ANALYZER_VERSION));
    put.run('embedder', null);
    put.run('dimensions', null);
    put.run('created_at', now);
    put.run('updated_at', now);
  })();
}

function checkVersions(db: Db, file: string): void {
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

/**
 * Opens (or creates) the SQLite index at `file` (`:memory:` for a throwaway
 * index). Throws CodesiftError INDEX_NOT_FOUND (missing and not creating),
 * INDEX_CORRUPT (not a database, truncated, or not a codesift index) or
 * INDEX_INCOMPATIBLE (other schema or analyzer version).
 */
export function openSqliteIndex(file: string, opts: OpenSqliteIndexOptions = {}): LocalIndex {
  const readonly = opts.readonly ?? false;
  const create = (opts.create ?? !readonly) && !readonly;
  const inMemory = file === ':memory:';
  if (!inMemory) {
    if (existsSync(file)) {
      if (!checkHeader(file) && !create) {
        throw new CodesiftError('INDEX_NOT_FOUND', `index ${file} is empty`, {
          hint: 'run `codesift index` to build it',
        });
      }
    } else {
      if (!create) {
        throw new CodesiftError('INDEX_NOT_FOUND', `no index at ${file}`, {
          hint: 'run `codesift index` to build it',
        });
      }
      mkdirSync(path.dirname(file), { recursive: true });
    }
  }
  let db: Db | undefined;
  try {
    db = new Database(file, { readonly, fileMustExist: !create && !inMemory });
    loadSqliteVec(db);
    db.pragma('busy_timeout = 5000');
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      // WAL + NORMAL: a power loss may drop the last commits but never corrupts the file.
      db.pragma('synchronous = NORMAL');
    }
    const handle = db;
    guard(file, () => {
      const tables = handle
        .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        .all() as { name: string }[];
      if (tables.some((t) => t.name === 'meta')) {
        checkVersions(handle, file);
      } else if (tables.length > 0) {
        throw corrupt(file, new Error('not a codesift index'));
      } else if (!create) {
        // A valid but empty database: a creation that never got as far as the schema.
        throw new CodesiftError('INDEX_NOT_FOUND', `index ${file} is empty`, {
          hint: 'run `codesift index` to build it',
        });
      } else {
        initSchema(handle);
      }
    });
    return new SqliteIndex(db, file, readonly);
  } catch (err) {
    db?.close();
    if (err instanceof CodesiftError) throw err;
    if (isCorruptionError(err)) throw corrupt(file, err);
    throw err;
  }
}
