/**
 * The vector side: vector_rows + the sqlite-vec table (durable, exact) and
 * the HNSW cache (approximate, fast) in front of it. Writes record what
 * they changed so the facade can bump the generation and patch the graph
 * once the transaction commits.
 */
import { CodesiftError } from '@codesift/core';
import type { SearchFilter, VectorHit, VectorQuery, VectorRecord } from '../ports.js';
import { HnswCache, type HnswOptions, type VectorChanges } from './hnsw-cache.js';
import { readVectorGeneration, type VectorGeneration } from './schema.js';
import { countRows, filterSql, type SqliteContext, sqlList } from './sql.js';

/** sqlite-vec refuses k above this. */
const MAX_KNN = 4096;
/** Filtered vector search below this many candidate rows reads them directly instead of running KNN. */
const DIRECT_SCAN_MAX = 1000;
/**
 * Most graph hits one filtered search over-fetches before post-filtering;
 * a filter that would need more is selective enough that exact search wins.
 */
const ANN_MAX_FETCH = 2048;

/** How vector search is answered right now, for status and explain. */
export interface VectorIndexState {
  /** `hnsw`: the graph answers; `exact`: sqlite-vec scans. */
  mode: 'hnsw' | 'exact';
  /**
   * fresh: the graph matches the database. no-vectors: the index stores
   * none. below-threshold: too few to bother. stale: the graph is older than
   * the database (a write since its last save). missing: never built.
   * disabled: HNSW is turned off (or the index is in memory).
   */
  reason: 'fresh' | 'no-vectors' | 'below-threshold' | 'stale' | 'missing' | 'disabled';
  vectors: number;
  /** The database's vector generation. */
  generation: number;
  /** The generation the saved graph was built at, if there is one. */
  graphGeneration: number | null;
}

export function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function checkVector(v: Float32Array, dims: number, what: string): void {
  if (!(v instanceof Float32Array) || v.length !== dims) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `${what} has ${v?.length ?? 'no'} dimensions; the index expects ${dims}`,
    );
  }
}

export class VectorStore {
  private dims: number | null;
  private hnsw: HnswCache | null = null;
  /** Changes of the transaction in progress (see takeChanges). */
  private changes: VectorChanges = { removed: [], added: [] };
  private touched = false;

  constructor(
    private readonly ctx: SqliteContext,
    dims: number | null,
    private readonly hnswOpts: HnswOptions | false,
  ) {
    this.dims = dims;
    this.resetCache();
  }

  get dimensions(): number | null {
    return this.dims;
  }

  private resetCache(): void {
    this.hnsw =
      this.dims === null || this.hnswOpts === false || this.ctx.file === ':memory:'
        ? null
        : new HnswCache(this.ctx.file, this.dims, this.hnswOpts);
  }

  /** The table was recreated with `dims` (setEmbedder): the old graph describes nothing. */
  recreated(dims: number | null): void {
    this.hnsw?.remove();
    this.dims = dims;
    this.resetCache();
    this.touched = true;
  }

  /** Whether the transaction in progress changed vectors. */
  get changed(): boolean {
    return this.touched;
  }

  /** Hands over (and forgets) the changes of the transaction that just ended. */
  takeChanges(): VectorChanges {
    const c = this.changes;
    this.changes = { removed: [], added: [] };
    this.touched = false;
    return c;
  }

  /** After a commit: keep the graph in step (see hnsw-cache.ts). */
  committed(before: VectorGeneration, after: VectorGeneration, changes: VectorChanges): void {
    this.hnsw?.apply(before, after, changes);
  }

  requireDims(): number {
    if (this.dims === null) {
      throw new CodesiftError('INVALID_ARGUMENT', 'this index stores no vectors', {
        hint: 'set an embedder (setEmbedder) before writing vectors',
      });
    }
    return this.dims;
  }

  /** Validates without writing, so a batch can fail before anything is stored. */
  check(v: Float32Array, what: string): void {
    checkVector(v, this.requireDims(), what);
  }

  insert(r: VectorRecord): void {
    const dims = this.requireDims();
    checkVector(r.vector, dims, `vector for ${r.id}`);
    const old = this.ctx.stmt('SELECT seq FROM vector_rows WHERE id = ?').get(r.id) as
      | { seq: number }
      | undefined;
    if (old) {
      this.ctx.stmt('DELETE FROM chunk_vectors WHERE rowid = ?').run(BigInt(old.seq));
      this.ctx.stmt('DELETE FROM vector_rows WHERE seq = ?').run(old.seq);
      this.changes.removed.push(BigInt(old.seq));
    }
    const info = this.ctx
      .stmt('INSERT INTO vector_rows(id, path, language) VALUES (?, ?, ?)')
      .run(r.id, r.path, r.language);
    const seq = BigInt(info.lastInsertRowid);
    // vec0 accepts only integer rowids; a JS number may bind as REAL, a BigInt never does.
    this.ctx
      .stmt('INSERT INTO chunk_vectors(rowid, embedding, language) VALUES (?, ?, ?)')
      .run(seq, vectorBlob(r.vector), r.language);
    this.changes.added.push({ key: seq, vector: r.vector });
    this.touched = true;
  }

  upsert(records: readonly VectorRecord[]): void {
    if (records.length === 0) return;
    this.requireDims();
    for (const r of records) this.insert(r);
  }

  deleteByPaths(paths: readonly string[]): void {
    if (this.dims === null) return;
    for (const p of paths) {
      const rows = this.ctx.stmt('SELECT seq FROM vector_rows WHERE path = ?').all(p) as {
        seq: number;
      }[];
      for (const r of rows) {
        this.ctx.stmt('DELETE FROM chunk_vectors WHERE rowid = ?').run(BigInt(r.seq));
        this.changes.removed.push(BigInt(r.seq));
        this.touched = true;
      }
      this.ctx.stmt('DELETE FROM vector_rows WHERE path = ?').run(p);
    }
  }

  count(): number {
    return countRows(this.ctx, 'vector_rows');
  }

  state(): VectorIndexState {
    const gen = readVectorGeneration(this.ctx);
    const vectors = this.dims === null ? 0 : this.count();
    const base = { vectors, generation: gen.generation };
    if (this.dims === null || vectors === 0) {
      return { mode: 'exact', reason: 'no-vectors', graphGeneration: null, ...base };
    }
    if (this.hnsw === null) {
      return { mode: 'exact', reason: 'disabled', graphGeneration: null, ...base };
    }
    const graphGeneration = this.hnsw.savedGeneration();
    if (vectors < this.hnsw.opts.minVectors) {
      return { mode: 'exact', reason: 'below-threshold', graphGeneration, ...base };
    }
    if (this.hnsw.forSearch(gen, false) !== null) {
      return { mode: 'hnsw', reason: 'fresh', graphGeneration, ...base };
    }
    return {
      mode: 'exact',
      reason: graphGeneration === null ? 'missing' : 'stale',
      graphGeneration,
      ...base,
    };
  }

  /** What flush() would do; the facade asks first so it can open a transaction only when needed. */
  flushPlan(): 'save' | 'rebuild' | 'remove' | 'none' {
    if (this.hnsw === null || this.dims === null) return 'none';
    return this.hnsw.needsFlush(readVectorGeneration(this.ctx), this.count());
  }

  /**
   * Brings the saved graph up to date with the database: saves patched
   * changes, rebuilds from sqlite-vec when it is stale, or deletes it when
   * the index holds too few vectors. Call inside a read transaction so the
   * vectors and the generation come from one snapshot.
   */
  flush(): void {
    const plan = this.flushPlan();
    const hnsw = this.hnsw;
    if (hnsw === null || plan === 'none') return;
    if (plan === 'remove') {
      hnsw.remove();
      return;
    }
    if (plan === 'rebuild') {
      const dims = this.requireDims();
      const n = this.count();
      const keys = new BigUint64Array(n);
      const data = new Float32Array(n * dims);
      let i = 0;
      for (const [seq, blob] of this.ctx
        .stmt('SELECT rowid, embedding FROM chunk_vectors')
        .raw()
        .iterate() as Iterable<[number | bigint, Buffer]>) {
        if (i >= n) break;
        keys[i] = BigInt(seq);
        data.set(new Float32Array(blob.buffer, blob.byteOffset, dims), i * dims);
        i++;
      }
      hnsw.rebuild(readVectorGeneration(this.ctx), keys.subarray(0, i), data.subarray(0, i * dims));
    }
    hnsw.save();
  }

  /**
   * Cosine KNN: through the HNSW graph when it matches the database, else
   * exact. Call inside a read transaction (see the facade) so the generation
   * check and the rows the hits map to are one snapshot.
   */
  search(q: VectorQuery): VectorHit[] {
    const limit = Math.min(Math.floor(q.limit), MAX_KNN);
    if (!(limit > 0) || this.dims === null) return [];
    checkVector(q.vector, this.dims, 'query vector');
    const hasFilter =
      (q.filter?.languages?.length ?? 0) > 0 ||
      (q.filter?.pathPrefixes?.length ?? 0) > 0 ||
      (q.filter?.excludePathPrefixes?.length ?? 0) > 0;
    const graph = this.graph();
    if (graph !== null && !hasFilter) {
      const hits = this.annSearch(graph, q.vector, limit, limit, undefined);
      // The graph holds exactly the database's rows, so a short answer means a tiny index.
      if (hits.length >= limit || hits.length >= graph.size()) return hits;
    }
    return this.filteredOrExact(q, limit, graph);
  }

  private graph(): ReturnType<HnswCache['forSearch']> {
    if (this.hnsw === null) return null;
    // Cheap once loaded: two meta reads and a comparison per search.
    return this.hnsw.forSearch(readVectorGeneration(this.ctx), false);
  }

  /** Top `fetch` graph neighbours, mapped to rows (and filtered), best `limit` of them. */
  private annSearch(
    graph: NonNullable<ReturnType<HnswCache['forSearch']>>,
    vector: Float32Array,
    fetch: number,
    limit: number,
    filter: SearchFilter | undefined,
  ): VectorHit[] {
    const found = graph.search(vector, fetch, 1);
    const n = found.keys.length;
    if (n === 0) return [];
    const distance = new Map<number, number>();
    for (let i = 0; i < n; i++) distance.set(Number(found.keys[i]), found.distances[i]!);
    const params: unknown[] = [...distance.keys()];
    const where = filterSql('r', filter, params);
    const rows = this.ctx
      .stmt(
        `SELECT r.seq, r.id, r.path FROM vector_rows r WHERE r.seq IN (${sqlList(n)})${
          where === '' ? '' : ` AND ${where}`
        }`,
      )
      .all(...params) as { seq: number; id: string; path: string }[];
    return rows
      .map((r) => ({ seq: r.seq, id: r.id, path: r.path, d: distance.get(r.seq)! }))
      .sort((a, b) => a.d - b.d || a.seq - b.seq)
      .slice(0, limit)
      .map((r) => ({ id: r.id, path: r.path, score: 1 - r.d }));
  }

  /**
   * Exact cosine KNN, with the graph as a shortcut for unselective filters.
   * A language filter runs inside vec0 (metadata column). A path filter
   * cannot, so: few candidates (<= DIRECT_SCAN_MAX) are read directly and
   * ranked; otherwise KNN over-fetches in proportion to how selective the
   * filter is and drops rows the filter rejects; if that leaves fewer than
   * `limit`, a scan over the filtered rows gives the exact answer (slower,
   * only when the filter's rows are far from the query).
   */
  private filteredOrExact(
    q: VectorQuery,
    limit: number,
    graph: ReturnType<HnswCache['forSearch']>,
  ): VectorHit[] {
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
      return this.ctx.stmt(sql).all(blob, k, ...langs, ...pathParams, limit) as VectorHit[];
    };

    if (!hasPathFilter && (graph === null || langs.length === 0)) return knn(limit, '', []);

    const filterParams: unknown[] = [];
    const where = filterSql('r', q.filter, filterParams);
    const allowed = (
      this.ctx
        .stmt(`SELECT count(*) AS n FROM vector_rows r WHERE ${where}`)
        .get(...filterParams) as { n: number }
    ).n;
    if (allowed === 0) return [];
    const direct = (sql: string): VectorHit[] =>
      this.ctx.stmt(sql).all(blob, ...filterParams, limit) as VectorHit[];
    if (allowed <= DIRECT_SCAN_MAX) {
      return direct(`SELECT r.id, r.path, 1 - vec_distance_cosine(v.embedding, ?) AS score
        FROM vector_rows r JOIN chunk_vectors v ON v.rowid = r.seq
        WHERE ${where} ORDER BY score DESC, r.seq LIMIT ?`);
    }
    if (graph !== null) {
      // Over-fetch in proportion to how much of the index the filter rejects, then post-filter.
      const total = graph.size();
      const fetch = Math.ceil(((limit * total) / allowed) * 2);
      if (fetch <= ANN_MAX_FETCH) {
        const hits = this.annSearch(graph, q.vector, Math.max(fetch, limit), limit, q.filter);
        if (hits.length >= limit) return hits;
      }
      if (!hasPathFilter) return knn(limit, '', []);
    }
    const langParams: unknown[] = [];
    const langWhere = filterSql('r', { languages: langs }, langParams);
    const pool = (
      this.ctx
        .stmt(
          `SELECT count(*) AS n FROM vector_rows r${langWhere === '' ? '' : ` WHERE ${langWhere}`}`,
        )
        .get(...langParams) as { n: number }
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
    const scored = this.ctx.stmt(`SELECT v.rowid AS seq, vec_distance_cosine(v.embedding, ?) AS d
        FROM chunk_vectors v WHERE +v.rowid IN (SELECT r.seq FROM vector_rows r WHERE ${where})
        ORDER BY d, seq LIMIT ?`);
    const top = scored.all(blob, ...filterParams, limit) as { seq: number; d: number }[];
    const idRow = this.ctx.stmt('SELECT id, path FROM vector_rows WHERE seq = ?');
    return top.map((t) => {
      const r = idRow.get(t.seq) as { id: string; path: string };
      return { id: r.id, path: r.path, score: 1 - t.d };
    });
  }
}
