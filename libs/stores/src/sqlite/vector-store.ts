/**
 * The vector side: vector_rows + the sqlite-vec table (durable, exact) and
 * the HNSW cache (approximate, fast) in front of it. Writes record what
 * they changed so the facade can bump the generation and patch the graph
 * once the transaction commits.
 */
import { CodesiftError } from '@codesift/core';
import type { SearchFilter, VectorHit, VectorQuery, VectorRecord } from '../ports.js';
import { keptOf, passingCandidates } from './broad-filter.js';
import { HnswCache, type HnswIndex, type HnswOptions, type VectorChanges } from './hnsw-cache.js';
import { nearestQuantized } from './quantized-rows.js';
import { type FilteredRows, RowCatalog, rowsUnderPrefixes } from './row-catalog.js';
import { readVectorGeneration, type VectorGeneration } from './schema.js';
import { countRows, filterSql, type SqliteContext, sqlList } from './sql.js';
import { filterKey, hasFilter } from './store-filter.js';
import { exactCosine } from './usearch-module.js';
import { readAllVectors, readVectors } from './vec0-reader.js';

/** sqlite-vec refuses k above this. */
const MAX_KNN = 4096;
/** Filtered vector search below this many candidate rows reads them directly instead of running KNN. */
const DIRECT_SCAN_MAX = 1000;
/**
 * A filtered graph search fetches this many times the neighbours it expects
 * to need (limit x index / rows kept), so that the filter's rows among them
 * reach the limit without a second search in all but unlucky cases. 8, not 4:
 * at 4 a filter keeping 7 % of the rows, scattered, gave recall@10 0.975-0.993
 * against exact filtered search over runs (the graph is built on every core,
 * so each build differs), under the 0.98 it must keep; at 8, 0.995-1.000 over
 * 16 builds (hnsw-cache.test.ts's data). The exact path still takes over
 * whenever reading the filter's rows costs less.
 */
const ANN_OVERFETCH = 8;
/**
 * Every graph search, filtered or not, fetches at least this many: a search
 * for k > ef explores k candidates. Asking the graph for just the limit at
 * the default ef (128) loses real neighbours: on the built-in model's
 * vectors of a real repository (sympy, 28,904 chunks, 150 queries) recall
 * against exact search was 0.92 at 10 and 0.87-0.90 at 50; fetching 512
 * gave 0.98-0.99 at both for about 1 ms more (1.3-1.9 against 0.4-0.6 ms).
 * Filtered searches need it too: 0.97 on clustered data without it, under
 * the 0.98 they must keep (hnsw-cache.test.ts).
 */
const ANN_MIN_FETCH = 512;
/** And this many times the limit, for the deep lists of collapsed file searches. */
const ANN_FETCH_PER_RESULT = 4;

/** How deep an unfiltered graph search (and a broad filter's) reads, on a graph of n. */
function unfilteredFetch(n: number, limit: number): number {
  return Math.min(n, Math.max(ANN_MIN_FETCH, limit * ANN_FETCH_PER_RESULT));
}
/**
 * What one vector read for exact search (vec0-reader.ts, in point reads)
 * costs in graph candidates visited: a point read took 100-700 us and a
 * graph search 30-70 us per candidate (k = 512 to 2,048) on 51k vectors of
 * 512 dimensions (2 cores, loaded). Decides between exact search over a
 * filter's rows and a widened graph search.
 */
const EXACT_ROW_COST = 10;

/**
 * What scanning one row of the quantized copy costs in graph candidates
 * visited: about 0.3 us a row (gather and usearch's int8 kernel) against
 * 30-70 us a candidate. Broad filters (most of the index) stay on the
 * graph, whose k is then small.
 */
const QUANTIZED_ROW_COST = 0.01;

/**
 * A directory filter holding under this share of the rows reads them
 * through the path index when there is no catalog yet (knownRows); a broader
 * one builds the catalog, whose filters are then cached.
 */
const DIRECTORY_MAX_SHARE = 0.75;

/** Directory filters whose rows are kept per generation without the catalog. */
const CACHED_PREFIX_FILTERS = 16;

/** Exact search takes a few beyond the limit so rows tied at the cut are ordered by seq. */
const EXACT_TIE_MARGIN = 8;

interface Scored {
  seq: number;
  d: number;
}

/** The best `limit` by distance, ties by seq (the exact path's order). */
function best(scored: Scored[], limit: number): Scored[] {
  return scored.sort((a, b) => a.d - b.d || a.seq - b.seq).slice(0, limit);
}

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
  /**
   * Since open: filtered searches the graph answered, those answered by exact
   * search over the filter's rows read from sqlite-vec or from the quantized
   * copy, and the rows of the copy in use (quantized-file.ts).
   */
  filtered: {
    /** Broad filters answered from the graph's own top candidates (broad-filter.ts). */
    broad: number;
    graph: number;
    exact: number;
    quantized: number;
    quantizedRows: number;
    /** Row catalogs built (one per generation at most; none for directory filters alone). */
    catalogs: number;
  };
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
  /** Rows by path and language for filtered graph searches (built on the first). */
  private catalog: RowCatalog | null = null;
  /** Directory filters' rows read without the catalog, per generation (knownRows). */
  private prefixRows: { gen: string; byFilter: Map<string, FilteredRows | null> } = {
    gen: '',
    byFilter: new Map(),
  };
  /** How filtered searches with a graph were answered (state().filtered). */
  private readonly filteredPaths = { broad: 0, graph: 0, exact: 0, quantized: 0, catalogs: 0 };
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

  /**
   * The index is closing: let go of the graph (a mapping of the whole graph
   * file, unmapped when usearch's object is collected), the catalog and the
   * quantized copy, so a closed index that something still references pins none of them.
   */
  close(): void {
    this.hnsw?.close();
    this.catalog = null;
    this.prefixRows = { gen: '', byFilter: new Map() };
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
    const filtered = { ...this.filteredPaths, quantizedRows: this.hnsw?.quantizedRows ?? 0 };
    const base = { vectors, generation: gen.generation, filtered };
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
   * Brings the saved graph and its quantized copy up to date with the
   * database: saves patched changes, rebuilds from sqlite-vec when the graph
   * is stale (or writes only the copy when it lacks one), or deletes both
   * when the index holds too few vectors. Call inside a read transaction so
   * the vectors and the generation come from one snapshot.
   */
  flush(): void {
    const plan = this.flushPlan();
    const hnsw = this.hnsw;
    if (hnsw === null || plan === 'none') return;
    if (plan === 'remove') {
      hnsw.remove();
      return;
    }
    const gen = readVectorGeneration(this.ctx);
    if (plan === 'rebuild') {
      const all = this.allVectors();
      hnsw.rebuild(gen, all.keys, all.data);
    } else if (hnsw.quantizedMissing(gen)) {
      hnsw.rewriteQuantized(this.allVectors());
    }
    hnsw.save(gen);
  }

  /** Every stored vector, seq keys[i] at i x dims of data. */
  private allVectors(): { keys: BigUint64Array; data: Float32Array } {
    return readAllVectors(this.ctx, 'chunk_vectors', this.requireDims());
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
    const gen = readVectorGeneration(this.ctx);
    // Cheap once loaded: a comparison per search.
    const graph = this.hnsw === null ? null : this.hnsw.forSearch(gen, false);
    if (graph !== null && hasFilter(q.filter))
      return this.filteredAnn(graph, gen, q.filter, q.vector, limit);
    if (graph !== null) {
      const hits = this.annSearch(
        graph,
        q.vector,
        unfilteredFetch(graph.size(), limit),
        limit,
        null,
      );
      // The graph holds exactly the database's rows, so a short answer means a tiny index.
      if (hits.length >= limit || hits.length >= graph.size()) return hits;
    }
    return this.exact(q, limit);
  }

  /**
   * A filtered search over the graph. The filter's rows (s of the graph's
   * n) come from the row catalog, or from the path index for a directory
   * (knownRows). The graph's top k = limit x n/s x ANN_OVERFETCH (at least
   * ANN_MIN_FETCH) hold about limit x ANN_OVERFETCH of them; k widens 4x
   * while too few pass. Exact distances to the s rows instead, whenever
   * that costs less than the graph search: from the quantized copy saved
   * with the graph (s x QUANTIZED_ROW_COST <= k), else from sqlite-vec
   * (readCost x EXACT_ROW_COST <= k). A selective filter never scans every
   * vector and never starves the graph.
   *
   * A broad filter, one whose graph search would go no deeper than an
   * unfiltered one (k at its floor: s/n >= limit x ANN_OVERFETCH / k), is
   * answered from the graph's top k as an unfiltered search is. When its
   * rows are not known cheaply (a language, an exclusion, a directory of
   * most rows, with no catalog yet: a one-shot search), the share is read
   * off those candidates (broad-filter.ts) instead of every row: the same
   * answer, without the catalog (100-330 ms of a one-shot search on
   * sympy's 28,904 rows). So the answer does not depend on what a process
   * has cached.
   */
  private filteredAnn(
    graph: HnswIndex,
    gen: VectorGeneration,
    filter: SearchFilter,
    vector: Float32Array,
    limit: number,
  ): VectorHit[] {
    const n = graph.size();
    const k = unfilteredFetch(n, limit);
    // At or above this many of the k candidates (or this share of all rows), k stays at its floor.
    const broad = Math.min(k, limit * ANN_OVERFETCH);
    const known = this.knownRows(filter, gen, n);
    if (known === null || known.seqs.length * k >= broad * n) {
      const found = graph.search(vector, k, 1);
      const kept =
        known === null
          ? passingCandidates(this.ctx, found, filter)
          : keptOf(found, (seq) => known.has(seq));
      if (kept.length >= (known === null ? broad : limit)) {
        this.filteredPaths.broad++;
        return this.hitsFor(best(kept, limit));
      }
    }
    return this.filteredOver(graph, gen, vector, limit, known ?? this.fromCatalog(filter, gen));
  }

  /**
   * The rows `filter` keeps, when finding them does not mean reading every
   * row: the catalog's when it is of this generation; without it a
   * directory filter holding under DIRECTORY_MAX_SHARE of the rows reads its
   * own rows through the path index (the same rows, so the same answer).
   * Null otherwise.
   */
  private knownRows(filter: SearchFilter, gen: VectorGeneration, n: number): FilteredRows | null {
    if (RowCatalog.current(gen, this.catalog) !== null) return this.fromCatalog(filter, gen);
    const genKey = `${gen.uid}:${gen.generation}`;
    if (this.prefixRows.gen !== genKey) this.prefixRows = { gen: genKey, byFilter: new Map() };
    const key = filterKey(filter);
    let own = this.prefixRows.byFilter.get(key);
    if (own === undefined) {
      own = rowsUnderPrefixes(
        this.ctx,
        'chunk_vectors',
        filter,
        Math.ceil(n * DIRECTORY_MAX_SHARE),
      );
      // A server repeats its filters: each one's rows are read once per generation.
      if (this.prefixRows.byFilter.size >= CACHED_PREFIX_FILTERS) this.prefixRows.byFilter.clear();
      this.prefixRows.byFilter.set(key, own);
    }
    return own;
  }

  private fromCatalog(filter: SearchFilter, gen: VectorGeneration): FilteredRows {
    if (RowCatalog.current(gen, this.catalog) === null) this.filteredPaths.catalogs++;
    this.catalog = RowCatalog.at(this.ctx, 'chunk_vectors', gen, this.catalog);
    return this.catalog.matching(filter);
  }

  /** The best `limit` of `rows` (s of the graph's n): see filteredAnn. */
  private filteredOver(
    graph: HnswIndex,
    gen: VectorGeneration,
    vector: Float32Array,
    limit: number,
    rows: FilteredRows,
  ): VectorHit[] {
    const n = graph.size();
    const s = rows.seqs.length;
    if (s === 0) return [];
    let k = Math.min(n, Math.max(ANN_MIN_FETCH, Math.ceil(((limit * n) / s) * ANN_OVERFETCH)));
    if (s * QUANTIZED_ROW_COST <= k) {
      const hits = this.fromQuantized(gen, rows, vector, limit);
      if (hits !== null) return hits;
    }
    if (rows.readCost * EXACT_ROW_COST <= k) {
      this.filteredPaths.exact++;
      return this.exactOver(rows, vector, limit);
    }
    let hits: VectorHit[];
    for (;;) {
      hits = this.annSearch(graph, vector, k, limit, rows);
      if (hits.length >= limit || k >= n) break;
      // The filter's rows lie far from the query: widen.
      k = Math.min(n, k * 4);
    }
    this.filteredPaths.graph++;
    return hits;
  }

  /** The best `limit` of `rows` from the quantized copy, or null when it cannot answer. */
  private fromQuantized(
    gen: VectorGeneration,
    rows: FilteredRows,
    vector: Float32Array,
    limit: number,
  ): VectorHit[] | null {
    const hnsw = this.hnsw;
    const copy = hnsw?.quantized(gen) ?? null;
    if (hnsw === null || copy === null || !copy.ready(rows.seqs)) return null;
    let found: ReturnType<typeof nearestQuantized>;
    try {
      found = nearestQuantized(copy, rows.seqs, vector, limit);
    } catch {
      // The file went bad under this reader (replaced or cut by hand): the graph answers.
      hnsw.rejectQuantized();
      return null;
    }
    if (found === null) return null;
    this.filteredPaths.quantized++;
    return this.hitsFor(
      best(
        found.map((x) => ({ seq: rows.seqs[x.row]!, d: x.d })),
        limit,
      ),
    );
  }

  /** Top `fetch` graph neighbours, those `rows` keeps (all when null), best `limit`, mapped to rows. */
  private annSearch(
    graph: HnswIndex,
    vector: Float32Array,
    fetch: number,
    limit: number,
    rows: FilteredRows | null,
  ): VectorHit[] {
    const found = graph.search(vector, fetch, 1);
    const kept = keptOf(found, (seq) => rows === null || rows.has(seq));
    return this.hitsFor(best(kept, limit));
  }

  /** Exact cosine distances to `rows` (their vectors read from sqlite-vec), best `limit`. */
  private exactOver(rows: FilteredRows, vector: Float32Array, limit: number): VectorHit[] {
    const dims = this.requireDims();
    const data = readVectors(this.ctx, 'chunk_vectors', dims, rows.seqs, (i) => ({
      chunk: rows.chunks[i]!,
      offset: rows.offsets[i]!,
    }));
    // The graph's own distance function, so both paths rank alike.
    const found = exactCosine(
      data,
      vector,
      dims,
      Math.min(rows.seqs.length, limit + EXACT_TIE_MARGIN),
    );
    const scored: Scored[] = [];
    for (let i = 0; i < found.keys.length; i++) {
      scored.push({ seq: rows.seqs[Number(found.keys[i])]!, d: found.distances[i]! });
    }
    return this.hitsFor(best(scored, limit));
  }

  /** The rows of scored seqs, in the order given. */
  private hitsFor(scored: Scored[]): VectorHit[] {
    if (scored.length === 0) return [];
    const rows = this.ctx
      .stmt(`SELECT seq, id, path FROM vector_rows WHERE seq IN (${sqlList(scored.length)})`)
      .all(...scored.map((x) => x.seq)) as { seq: number; id: string; path: string }[];
    const bySeq = new Map(rows.map((r) => [r.seq, r]));
    const out: VectorHit[] = [];
    for (const x of scored) {
      const r = bySeq.get(x.seq);
      if (r !== undefined) out.push({ id: r.id, path: r.path, score: 1 - x.d });
    }
    return out;
  }

  /**
   * Exact cosine KNN in sqlite-vec (no graph: a small, stale or in-memory
   * index). A language filter runs inside vec0 (metadata column). A path
   * filter cannot, so: few candidates (<= DIRECT_SCAN_MAX) are read directly
   * and ranked; otherwise KNN over-fetches in proportion to how selective
   * the filter is and drops rows the filter rejects; if that leaves fewer
   * than `limit`, a scan over the filtered rows gives the exact answer.
   */
  private exact(q: VectorQuery, limit: number): VectorHit[] {
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

    if (!hasPathFilter) return knn(limit, '', []);

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
