/**
 * The local index: every store port over one SQLite file (WAL), with FTS5
 * for BM25, sqlite-vec for vectors and a derived HNSW graph in front of
 * sqlite-vec. This module is the facade: opening (with corruption checks),
 * transactions and the LocalIndex operations that span the stores. The
 * pieces live in ./sqlite/: schema.ts (tables, meta, versions),
 * keyword-store.ts + keyword-plan.ts + term-stats.ts (BM25), vector-store.ts
 * + hnsw-cache.ts (vectors), symbol-store.ts, manifest-store.ts.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  CodesiftError,
  forgetRepositories,
  placeRoot,
  repositoriesOf,
  repositoryPrefix,
} from '@codesift/core';
import { rootOfIndexFile } from './index-root.js';
import type { FileCommit, IndexMeta, IndexStats, LocalIndex } from './local-index.js';
import type {
  ChunkStore,
  FileTextStore as FileTextPort,
  HistoryIndex,
  KeywordIndex,
  Manifest,
  SymbolIndex,
  VectorIndex,
} from './ports.js';
import { BridgeAssoc } from './sqlite/bridge-assoc.js';
import { countCooccurrence } from './sqlite/cooccurrence.js';
import { checkHeader, corrupt, guard, isCorruptionError } from './sqlite/corruption.js';
import { FileTextStore } from './sqlite/file-text-store.js';
import { HistoryStore } from './sqlite/history-store.js';
import type { HnswOptions } from './sqlite/hnsw-cache.js';
import { checkIntegrity, type IntegrityReport } from './sqlite/integrity.js';
import { KeywordStore } from './sqlite/keyword-store.js';
import { ManifestStore } from './sqlite/manifest-store.js';
import { loadSqliteVec, SqliteDatabase } from './sqlite/native.js';
import {
  addColumns,
  bumpVectorGeneration,
  checkVersions,
  initSchema,
  readMeta,
  readVectorGeneration,
  setMetaValue,
} from './sqlite/schema.js';
import {
  configureConnection,
  countRows,
  type Db,
  type SqliteContext,
  StatementCache,
} from './sqlite/sql.js';
import { SymbolStore } from './sqlite/symbol-store.js';
import { type VectorIndexState, VectorStore } from './sqlite/vector-store.js';
import { verifyPages } from './sqlite/verified-stamp.js';

export { HNSW_DEFAULTS, type HnswOptions, hnswPaths } from './sqlite/hnsw-cache.js';
export type { IntegrityReport } from './sqlite/integrity.js';
export {
  COMMON_TERM_RATIO,
  KEYWORD_POSTINGS_BUDGET,
  MAX_KEYWORD_TERMS,
  type TermPlan,
} from './sqlite/keyword-plan.js';
export { BM25_WEIGHTS } from './sqlite/keyword-store.js';
export { SCHEMA_VERSION } from './sqlite/schema.js';
export type { VectorIndexState } from './sqlite/vector-store.js';

/** An index run leaving more FTS segments than this merges them at close (see KeywordStore.compact). */
const MAX_FTS_SEGMENTS = 4;

export interface OpenSqliteIndexOptions {
  /** Open read-only (queries only). Default false. */
  readonly?: boolean;
  /** Create the file (and its directory) when missing. Default: true unless readonly. */
  create?: boolean;
  /** HNSW graph settings, or false to always search vectors exactly. */
  hnsw?: HnswOptions | false;
  /**
   * Check every page when this file state was not seen to pass before
   * (sqlite/verified-stamp.ts): a search must not answer from a damaged
   * index. Default false.
   */
  verify?: boolean;
}

/** Where the local index lives for a root: `<root>/.codesift/index.db`. */
/** The SQLite LocalIndex, with what only this implementation offers. */
export interface SqliteLocalIndex extends LocalIndex {
  readonly fileTexts: FileTextPort;
  readonly history: HistoryIndex;
  /** How vector search is answered now (HNSW or exact, and why). */
  vectorIndexState(): VectorIndexState;
  /**
   * Brings the HNSW file up to date (save, rebuild or delete) and merges
   * FTS segments after large writes. close() does this too for a writer.
   */
  flushVectorIndex(): void;
  /** Checks every page and the agreement between the stores (sqlite/integrity.ts); never throws for damage. */
  checkIntegrity(): IntegrityReport;
}

class SqliteIndex implements SqliteLocalIndex {
  readonly keyword: KeywordIndex;
  readonly vectors: VectorIndex;
  readonly symbols: SymbolIndex;
  readonly manifest: Manifest;
  readonly chunks: ChunkStore;
  readonly fileTexts: FileTextPort;
  readonly history: HistoryIndex;

  private readonly cache: StatementCache;
  private readonly ctx: SqliteContext;
  private readonly kw: KeywordStore;
  private readonly assoc: BridgeAssoc;
  private readonly vec: VectorStore;
  private readonly sym: SymbolStore;
  private readonly files: ManifestStore;
  /** The root meta() last derived, for the stored root it was derived from. */
  private root: { stored: string | null; root: string | null } | undefined;
  private readonly texts: FileTextStore;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly file: string,
    private readonly readonly: boolean,
    hnsw: HnswOptions | false,
  ) {
    this.cache = new StatementCache(db);
    const cache = this.cache;
    this.ctx = { db, file, stmt: (sql) => cache.get(sql) };
    this.kw = new KeywordStore(this.ctx);
    this.assoc = new BridgeAssoc(this.ctx, this.kw.stats);
    if (!readonly) this.kw.assoc = this.assoc;
    this.vec = new VectorStore(this.ctx, readMeta(this.ctx).dimensions, hnsw);
    this.sym = new SymbolStore(this.ctx);
    this.files = new ManifestStore(this.ctx);
    this.texts = new FileTextStore(this.ctx);
    const hist = new HistoryStore(this.ctx);
    const self = this;
    const kw = this.kw;
    const assoc = this.assoc;
    const vec = this.vec;
    const sym = this.sym;
    const files = this.files;
    this.keyword = {
      async upsert(docs) {
        self.write(() => kw.upsert(docs));
      },
      async deleteByPaths(paths) {
        self.write(() => kw.deleteByPaths(paths));
      },
      async search(q) {
        return self.read(() => kw.search(q));
      },
      async count() {
        return self.read(() => countRows(self.ctx, 'chunks'));
      },
      async cooccurrence(q) {
        return self.read(() => countCooccurrence(self.ctx, kw.stats, q, assoc));
      },
    };
    this.vectors = {
      async upsert(records) {
        self.write(() => vec.upsert(records));
      },
      async deleteByPaths(paths) {
        self.write(() => vec.deleteByPaths(paths));
      },
      async search(q) {
        // One snapshot for the generation check and the rows the graph's hits map to.
        return self.read(() => self.db.transaction(() => vec.search(q))());
      },
      async count() {
        return self.read(() => vec.count());
      },
    };
    this.symbols = {
      async upsert(symbols) {
        self.write(() => sym.upsert(symbols));
      },
      async deleteByPaths(paths) {
        self.write(() => sym.deleteByPaths(paths));
      },
      async lookup(name, opts) {
        return self.read(() => sym.lookup(name, opts));
      },
      async inFile(p) {
        return self.read(() => sym.inFile(p));
      },
      async inFiles(paths) {
        return self.read(() => sym.inFiles(paths));
      },
      async vocabulary(opts) {
        return self.read(() => sym.vocabulary(opts));
      },
      async related(words, opts) {
        return self.read(() => sym.related(words, opts));
      },
      async count() {
        return self.read(() => countRows(self.ctx, 'symbols'));
      },
    };
    this.manifest = {
      async get(p) {
        return self.read(() => files.get(p));
      },
      async getMany(paths) {
        return self.read(() => files.getMany(paths));
      },
      async all(prefix) {
        return self.read(() => files.all(prefix));
      },
      async paths(containing) {
        return self.read(() => files.paths(containing));
      },
      async put(records) {
        self.write(() => {
          for (const r of records) files.put(r);
        });
      },
      async remove(paths) {
        self.write(() => files.remove(paths));
      },
    };
    this.chunks = {
      async get(ids) {
        return self.read(() => kw.get(ids));
      },
    };
    const texts = this.texts;
    this.fileTexts = {
      async get(p) {
        return self.read(() => texts.get(p));
      },
      async stored(paths) {
        return self.read(() => texts.stored(paths));
      },
    };
    this.history = {
      async similar(terms, limit) {
        return self.read(() => hist.similar(terms, limit));
      },
      async head() {
        return self.read(() => hist.head());
      },
      async replace(commits, head) {
        self.write(() => hist.replace(commits, head));
      },
    };
  }

  // ---- plumbing ----

  private ensureOpen(): void {
    if (this.closed) throw new CodesiftError('INVALID_ARGUMENT', `index ${this.file} is closed`);
  }

  private read<T>(fn: () => T): T {
    this.ensureOpen();
    return guard(this.file, fn);
  }

  /**
   * One transaction per call. A transaction that changed vectors bumps the
   * vector generation inside it, and the HNSW graph is patched only after
   * it commits (a rollback leaves graph and generation as they were).
   */
  private write(fn: () => void): void {
    this.ensureOpen();
    if (this.readonly) {
      throw new CodesiftError('INVALID_ARGUMENT', `index ${this.file} was opened read-only`);
    }
    type Gen = ReturnType<typeof readVectorGeneration>;
    const gens: { before?: Gen; after?: Gen } = {};
    this.vec.takeChanges();
    try {
      guard(this.file, () =>
        this.db.transaction(() => {
          fn();
          if (this.vec.changed) {
            gens.before = readVectorGeneration(this.ctx);
            gens.after = bumpVectorGeneration(this.ctx);
          }
          setMetaValue(this.ctx, 'updated_at', String(Date.now()));
        })(),
      );
    } catch (err) {
      this.vec.takeChanges();
      this.assoc.rolledBack();
      throw err;
    } finally {
      this.kw.stats.invalidate();
      this.sym.invalidate();
    }
    const changes = this.vec.takeChanges();
    if (gens.before && gens.after) this.vec.committed(gens.before, gens.after, changes);
  }

  // ---- LocalIndex ----

  meta(): IndexMeta {
    const meta = this.read(() => readMeta(this.ctx));
    if (this.file === ':memory:') return meta;
    // A search reads meta several times; the root costs two realpath calls,
    // and depends only on this file and the stored root.
    if (this.root?.stored !== meta.root) {
      this.root = { stored: meta.root, root: rootOfIndexFile(this.file, meta.root) };
    }
    return { ...meta, root: this.root.root };
  }

  private removeDerived(paths: readonly string[]): void {
    this.kw.deleteByPaths(paths);
    this.vec.deleteByPaths(paths);
    this.sym.deleteByPaths(paths);
    this.texts.remove(paths);
  }

  commitFiles(batch: FileCommit[]): void {
    this.write(() => {
      for (const f of batch) {
        const p = f.record.path;
        this.removeDerived([p]);
        if (f.vectors !== null) {
          this.vec.requireDims();
          if (f.vectors.length !== f.chunks.length) {
            throw new CodesiftError(
              'INVALID_ARGUMENT',
              `${p}: ${f.vectors.length} vectors for ${f.chunks.length} chunks`,
            );
          }
          for (let i = 0; i < f.chunks.length; i++) {
            const c = f.chunks[i]!;
            this.vec.insert({
              id: c.id,
              path: c.path,
              language: c.language,
              vector: f.vectors[i]!,
            });
          }
        }
        for (const c of f.chunks) this.kw.insert(c);
        this.sym.upsert(f.symbols);
        this.texts.replace(p, f.text);
        this.files.put(f.record);
      }
    });
  }

  setRoot(root: string, repository?: string): void {
    const next = placeRoot(this.meta(), countRows(this.ctx, 'files') > 0, root, repository);
    if (next === null) return;
    this.write(() => {
      setMetaValue(this.ctx, 'root', next.root);
      const names = Object.keys(next.repositories);
      setMetaValue(
        this.ctx,
        'repositories',
        names.length > 0 ? JSON.stringify(next.repositories) : null,
      );
    });
  }

  removeFiles(paths: string[]): void {
    this.write(() => {
      this.removeDerived(paths);
      this.files.remove(paths);
      this.forgetEmptied(paths);
    });
  }

  /** A repository whose last file went is forgotten (removing a repository is emptying it). */
  private forgetEmptied(removed: string[]): void {
    const meta = this.meta();
    const emptied = repositoriesOf(meta.repositories, removed).filter(
      (name) => !this.files.hasUnder(repositoryPrefix(name)),
    );
    const next = forgetRepositories(meta, emptied);
    if (next === null) return;
    const left = Object.keys(next.repositories).length > 0;
    setMetaValue(this.ctx, 'repositories', left ? JSON.stringify(next.repositories) : null);
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
      countRows(this.ctx, 'files') === 0 &&
      countRows(this.ctx, 'chunks') === 0 &&
      countRows(this.ctx, 'vector_rows') === 0;
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
      setMetaValue(this.ctx, 'embedder', name);
      setMetaValue(this.ctx, 'dimensions', dimensions === null ? null : String(dimensions));
      // Statements prepared against the dropped table are stale.
      this.cache.clear();
      this.vec.recreated(dimensions);
    });
    this.cache.clear();
  }

  vectorIndexState(): VectorIndexState {
    return this.read(() => this.db.transaction(() => this.vec.state())());
  }

  flushVectorIndex(): void {
    this.ensureOpen();
    if (this.readonly) return;
    guard(this.file, () => {
      // The bridge's counts for what this connection wrote (nothing to do when nothing was).
      this.db.transaction(() => this.assoc.flush())();
      this.kw.stats.invalidate();
      // Checking is ~1 ms; merging only happens when an index run left many segments.
      this.db.transaction(() => this.kw.compact(MAX_FTS_SEGMENTS))();
      if (this.vec.flushPlan() === 'none') return;
      // An index written before generations existed gets its uid now, so a graph can name it.
      if (readVectorGeneration(this.ctx).uid === null) {
        this.db.transaction(() => bumpVectorGeneration(this.ctx))();
      }
      this.db.transaction(() => this.vec.flush())();
    });
  }

  checkIntegrity(): IntegrityReport {
    this.ensureOpen();
    let embedder: string | null = null;
    try {
      embedder = readMeta(this.ctx).embedder;
    } catch {
      // Reported by the page check below.
    }
    return checkIntegrity(this.ctx, embedder, () => this.db.transaction(() => this.vec.state())());
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
        files: countRows(this.ctx, 'files'),
        chunks: countRows(this.ctx, 'chunks'),
        symbols: countRows(this.ctx, 'symbols'),
        vectors: countRows(this.ctx, 'vector_rows'),
        bytes,
      };
    });
  }

  close(): void {
    if (this.closed) return;
    try {
      // A writer leaves a fresh HNSW behind; if this fails the graph is merely stale (exact search).
      if (!this.readonly) this.flushVectorIndex();
    } finally {
      this.closed = true;
      this.vec.close();
      this.cache.clear();
      this.db.close();
    }
  }
}

/**
 * Opens (or creates) the SQLite index at `file` (`:memory:` for a throwaway
 * index). Throws CodesiftError INDEX_NOT_FOUND (missing and not creating),
 * INDEX_CORRUPT (not a database, truncated, or not a codesift index) or
 * INDEX_INCOMPATIBLE (other schema or analyzer version).
 */
export function openSqliteIndex(file: string, opts: OpenSqliteIndexOptions = {}): SqliteLocalIndex {
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
    db = new SqliteDatabase(file, { readonly, fileMustExist: !create && !inMemory });
    loadSqliteVec(db);
    configureConnection(db, !readonly);
    const handle = db;
    guard(file, () => {
      const tables = handle
        .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        .all() as { name: string }[];
      if (tables.some((t) => t.name === 'meta')) {
        if (opts.verify && !inMemory) verifyPages(handle, file);
        checkVersions(handle, file);
        if (!readonly) addColumns(handle);
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
    return new SqliteIndex(db, file, readonly, opts.hnsw ?? {});
  } catch (err) {
    db?.close();
    if (err instanceof CodesiftError) throw err;
    if (isCorruptionError(err)) throw corrupt(file, err);
    throw err;
  }
}
