/**
 * The vector rows' (seq, path, language) held in memory, so a filtered
 * vector search knows in a few milliseconds which rows the filter keeps,
 * without a full-table SQL scan per query (`instr` prefixes and language
 * tests use no index). Built on the first filtered search of a database
 * generation and rebuilt when the generation changes; the rows that pass a
 * filter are cached per filter, since agents repeat the same one.
 *
 * Cost: about 16 bytes a row plus each distinct path once (1M rows of 170k
 * files: ~30 MB), and a bitmap by seq per cached filter.
 */
import type { SearchFilter } from '../ports.js';
import { scopeCondition } from './keyword-scope.js';
import type { VectorGeneration } from './schema.js';
import type { SqliteContext } from './sql.js';
import { filterKey, pathPasses, rowPasses } from './store-filter.js';
import { readCost } from './vec0-reader.js';

/** The rows a filter keeps: seqs ascending, where their vectors lie, and a membership test. */
export interface FilteredRows {
  seqs: Float64Array;
  /** vec0 chunk and offset of row i (see vec0-reader.ts). */
  chunks: Uint32Array;
  offsets: Uint16Array;
  /** What reading their vectors costs, in point reads (vec0-reader readCost). */
  readCost: number;
  has(seq: number): boolean;
}

/** Filters remembered per generation. */
const CACHED_FILTERS = 16;

export class RowCatalog {
  private readonly seqs: Float64Array;
  private readonly pathOf: Uint32Array;
  private readonly langOf: Uint16Array;
  private readonly chunkOf: Uint32Array;
  private readonly offsetOf: Uint16Array;
  private readonly paths: string[] = [];
  private readonly langs: string[] = [];
  private readonly maxSeq: number;
  private readonly cache = new Map<string, FilteredRows>();

  private constructor(
    readonly uid: string | null,
    readonly generation: number,
    ctx: SqliteContext,
    table: string,
  ) {
    const n = (ctx.stmt('SELECT count(*) AS n FROM vector_rows').get() as { n: number }).n;
    this.seqs = new Float64Array(n);
    this.pathOf = new Uint32Array(n);
    this.langOf = new Uint16Array(n);
    this.chunkOf = new Uint32Array(n);
    this.offsetOf = new Uint16Array(n);
    const pathIds = new Map<string, number>();
    const langIds = new Map<string, number>();
    let i = 0;
    let max = 0;
    // Ordered by seq so the survivors of any filter come out ascending.
    for (const [seq, p, lang, chunk, offset] of ctx
      .stmt(
        `SELECT r.seq, r.path, r.language, v.chunk_id, v.chunk_offset
         FROM vector_rows r JOIN ${table}_rowids v ON v.rowid = r.seq ORDER BY r.seq`,
      )
      .raw()
      .iterate() as Iterable<[number, string, string, number, number]>) {
      if (i >= n) break;
      let pid = pathIds.get(p);
      if (pid === undefined) {
        pid = this.paths.push(p) - 1;
        pathIds.set(p, pid);
      }
      let lid = langIds.get(lang);
      if (lid === undefined) {
        lid = this.langs.push(lang) - 1;
        langIds.set(lang, lid);
      }
      this.seqs[i] = seq;
      this.pathOf[i] = pid;
      this.langOf[i] = lid;
      this.chunkOf[i] = chunk;
      this.offsetOf[i] = offset;
      if (seq > max) max = seq;
      i++;
    }
    this.maxSeq = max;
  }

  /** `catalog` when it is of generation `gen`, else null. */
  static current(gen: VectorGeneration, catalog: RowCatalog | null): RowCatalog | null {
    return catalog !== null && catalog.uid === gen.uid && catalog.generation === gen.generation
      ? catalog
      : null;
  }

  /** The catalog of `ctx` at `gen`: `current` when it is still that generation, else a new one. */
  static at(
    ctx: SqliteContext,
    table: string,
    gen: VectorGeneration,
    current: RowCatalog | null,
  ): RowCatalog {
    return RowCatalog.current(gen, current) ?? new RowCatalog(gen.uid, gen.generation, ctx, table);
  }

  get size(): number {
    return this.seqs.length;
  }

  /** The rows `filter` keeps (store filter semantics: languages, path prefixes, excluded prefixes). */
  matching(filter: SearchFilter): FilteredRows {
    const key = filterKey(filter);
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      // Re-insert: the map's order is the eviction order.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const wantLangs = new Set(filter.languages ?? []);
    const langOk = this.langs.map((l) => wantLangs.size === 0 || wantLangs.has(l));
    const pathOk = new Uint8Array(this.paths.length);
    this.paths.forEach((p, i) => {
      pathOk[i] = pathPasses(filter, p) ? 1 : 0;
    });
    const bits = new Uint8Array(this.maxSeq + 1);
    const kept: number[] = [];
    for (let i = 0; i < this.seqs.length; i++) {
      if (pathOk[this.pathOf[i]!] === 1 && langOk[this.langOf[i]!]) {
        kept.push(i);
        bits[this.seqs[i]!] = 1;
      }
    }
    const chunks = Uint32Array.from(kept, (i) => this.chunkOf[i]!);
    const rows: FilteredRows = {
      seqs: Float64Array.from(kept, (i) => this.seqs[i]!),
      chunks,
      offsets: Uint16Array.from(kept, (i) => this.offsetOf[i]!),
      readCost: readCost(chunks),
      has: (seq) => bits[seq] === 1,
    };
    if (this.cache.size >= CACHED_FILTERS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, rows);
    return rows;
  }
}

/**
 * The rows a filter with include prefixes keeps, read through the
 * `vector_rows(path)` index without the catalog, when the prefixes hold
 * fewer than `cap` rows; null when they hold more (or a prefix has no index
 * range). A directory filter in a one-shot search reads its own rows, not a
 * catalog of every row (40 ms at 29k rows, 140 ms at 100k).
 */
export function rowsUnderPrefixes(
  ctx: SqliteContext,
  table: string,
  filter: SearchFilter,
  cap: number,
): FilteredRows | null {
  const scope = scopeCondition(filter, 'r.path');
  if (scope === null) return null;
  const { n } = ctx
    .stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM vector_rows r WHERE ${scope.where} LIMIT ?)`)
    .get(...scope.params, cap) as { n: number };
  if (n >= cap) return null;
  const kept = (
    ctx
      .stmt(
        `SELECT r.seq, r.path, r.language, v.chunk_id, v.chunk_offset
         FROM vector_rows r JOIN ${table}_rowids v ON v.rowid = r.seq
         WHERE ${scope.where} ORDER BY r.seq`,
      )
      .raw()
      .all(...scope.params) as [number, string, string, number, number][]
  ).filter(([, p, lang]) => rowPasses(filter, p, lang));
  const chunks = Uint32Array.from(kept, (r) => r[3]);
  const seqs = Float64Array.from(kept, (r) => r[0]);
  const members = new Set(kept.map((r) => r[0]));
  return {
    seqs,
    chunks,
    offsets: Uint16Array.from(kept, (r) => r[4]),
    readCost: readCost(chunks),
    has: (seq) => members.has(seq),
  };
}
