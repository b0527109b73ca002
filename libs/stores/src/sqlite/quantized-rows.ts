/**
 * An in-memory copy of some vector rows in two-byte fixed point, for exact
 * search over a filter's rows without reading sqlite-vec again. Reading a
 * filter's vectors out of vec0 costs 0.1-0.7 ms a row (vec0-reader.ts), and
 * the graph path for a filter keeping a few % of the rows explores thousands
 * of candidates; a scan of the same rows held in memory costs well under a
 * microsecond a row.
 *
 * Each row is stored as v ≈ scale · (coarse + fine / 254), coarse and fine
 * int8 with a per-row scale (max |v_i| / 127), plus its f32 norm. The search
 * ranks the filter's rows by cosine over the coarse bytes alone (usearch's
 * SIMD int8 kernel, a few tens of ns a row; error about 5e-4 in cosine),
 * then re-ranks the best limit × 2 + COARSE_MARGIN with both bytes against
 * the f32 query (error about 2e-6, below the gaps that order real
 * neighbours), so it returns what exact f32 search returns, ties aside.
 *
 * Rows are quantized only when a filter asks for them (its rows, not the
 * whole index): a filter answered exactly from sqlite-vec stores the vectors
 * it just read; one answered by the graph reads some of its rows after
 * answering (see VectorStore). Memory: 1,032 bytes a row at 512 dimensions,
 * at most MAX_ROWS rows, plus 4 bytes per seq for the slot map. Rows are
 * keyed by seq, and a seq's vector never changes (a replaced row gets a new
 * seq, and seqs are never reused), so the copy stays valid across writes to
 * the same database: after a commit only the new rows are read.
 */
import { exactCosine } from './usearch-module.js';

/** Rows held at most: about 270 MB at 512 dimensions. Past it, new rows are not quantized. */
export const MAX_ROWS = 262_144;
/** The coarse pass keeps limit × 2 + this many rows for the fine re-rank. */
const COARSE_MARGIN = 64;
/** Steps of the fine byte per coarse step. */
const FINE_STEPS = 254;

/** The rows of a filter as the catalog gives them (row-catalog.ts FilteredRows). */
export interface CatalogRows {
  /** vector_rows.seq of row i. */
  seqs: ArrayLike<number>;
  /** vec0 chunk of row i (rows sharing a chunk are read together). */
  chunks: Uint32Array;
}

/** Reads the f32 vectors of rows `which` (indices into the filter's rows), row j at j × dims. */
export type RowReader = (which: number[]) => Float32Array;

/** Row i of the filter's rows at cosine distance d. */
export interface RowDistance {
  row: number;
  d: number;
}

export class QuantizedRows {
  /** Slot of each seq, -1 (or beyond the end) when not quantized. */
  private slotOf = new Int32Array(0);
  private coarse = new Int8Array(0);
  private fine = new Int8Array(0);
  private scale = new Float32Array(0);
  private norm = new Float32Array(0);
  private used = 0;
  /** Reused between searches: the coarse bytes of a filter's rows, side by side. */
  private gathered = new Int8Array(0);

  constructor(
    private readonly dims: number,
    private readonly maxRows = MAX_ROWS,
  ) {}

  private slot(seq: number): number {
    return seq < this.slotOf.length ? this.slotOf[seq]! : -1;
  }

  /** Rows held. */
  get size(): number {
    return this.used;
  }

  /** How many of `rows` are not held yet. */
  missing(rows: CatalogRows): number {
    let n = 0;
    for (let i = 0; i < rows.seqs.length; i++) if (this.slot(rows.seqs[i]!) < 0) n++;
    return n;
  }

  /** Whether another row fits. */
  get full(): boolean {
    return this.used >= this.maxRows;
  }

  /**
   * Quantizes row `which[j]` of `rows` from `data` (its f32 vector at j × dims),
   * skipping rows already held; stops when full.
   */
  store(rows: CatalogRows, which: ArrayLike<number>, data: Float32Array): void {
    for (let j = 0; j < which.length; j++) {
      const seq = rows.seqs[which[j]!]!;
      if (this.slot(seq) >= 0) continue;
      if (this.full) return;
      if (seq >= this.slotOf.length) {
        const grown = new Int32Array(Math.max(seq + 1, this.slotOf.length * 2)).fill(-1);
        grown.set(this.slotOf);
        this.slotOf = grown;
      }
      const slot = this.allocate();
      this.slotOf[seq] = slot;
      this.quantize(data, j * this.dims, slot);
    }
  }

  /** Writes the vector at `data[base..]` into `slot`. */
  private quantize(data: Float32Array, base: number, slot: number): void {
    const dims = this.dims;
    const coarse = this.coarse;
    const fine = this.fine;
    let max = 0;
    let sq = 0;
    for (let i = 0; i < dims; i++) {
      const x = data[base + i]!;
      sq += x * x;
      const a = x < 0 ? -x : x;
      if (a > max) max = a;
    }
    const step = max / 127;
    this.scale[slot] = step;
    this.norm[slot] = Math.sqrt(sq);
    const inv = step === 0 ? 0 : 1 / step;
    const at = slot * dims;
    for (let i = 0; i < dims; i++) {
      // floor(x + 0.5) is Math.round for these values, and 5x faster in V8 here.
      const units = data[base + i]! * inv;
      const c = Math.floor(units + 0.5);
      coarse[at + i] = c;
      fine[at + i] = Math.floor((units - c) * FINE_STEPS + 0.5);
    }
  }

  /**
   * Reads and stores rows of `rows` not held yet, a vec0 chunk's worth at a
   * time (at most `batch` rows of it at once), until `budgetMs` has passed
   * (at least one read) or the copy is full. A small batch keeps each read
   * short: below vec0-reader's CHUNK_READ_ROWS it reads rows one by one
   * (~0.1 ms each) instead of the 2 MB chunk (5-40 ms).
   */
  fill(
    rows: CatalogRows,
    read: RowReader,
    budgetMs: number,
    batch = Number.POSITIVE_INFINITY,
  ): void {
    const byChunk = new Map<number, number[]>();
    for (let i = 0; i < rows.seqs.length; i++) {
      if (this.slot(rows.seqs[i]!) >= 0) continue;
      const list = byChunk.get(rows.chunks[i]!);
      if (list === undefined) byChunk.set(rows.chunks[i]!, [i]);
      else list.push(i);
    }
    const start = performance.now();
    for (const group of byChunk.values()) {
      for (let at = 0; at < group.length; at += batch) {
        if (this.full) return;
        const which = batch >= group.length ? group : group.slice(at, at + batch);
        this.store(rows, which, read(which));
        if (performance.now() - start >= budgetMs) return;
      }
    }
  }

  private allocate(): number {
    if (this.used === this.scale.length) {
      const cap = Math.min(this.maxRows, Math.max(1024, this.used * 2));
      const grow = <T extends Int8Array | Float32Array>(
        old: T,
        make: (n: number) => T,
        per: number,
      ) => {
        const next = make(cap * per);
        next.set(old);
        return next;
      };
      this.coarse = grow(this.coarse, (n) => new Int8Array(n), this.dims);
      this.fine = grow(this.fine, (n) => new Int8Array(n), this.dims);
      this.scale = grow(this.scale, (n) => new Float32Array(n), 1);
      this.norm = grow(this.norm, (n) => new Float32Array(n), 1);
    }
    return this.used++;
  }

  /**
   * The best `limit` of `rows` (all held: check missing() first) by cosine
   * distance to `query`, unordered. Distances are those of the fine copy.
   */
  nearest(rows: CatalogRows, query: Float32Array, limit: number): RowDistance[] {
    const dims = this.dims;
    const s = rows.seqs.length;
    if (s === 0 || limit <= 0) return [];
    if (this.gathered.length < s * dims) this.gathered = new Int8Array(s * dims);
    const slots = new Int32Array(s);
    for (let i = 0; i < s; i++) {
      const slot = this.slot(rows.seqs[i]!);
      if (slot < 0) throw new Error('QuantizedRows.nearest: a row is not quantized');
      slots[i] = slot;
      this.gathered.set(this.coarse.subarray(slot * dims, slot * dims + dims), i * dims);
    }
    let qmax = 0;
    let qsq = 0;
    for (let i = 0; i < dims; i++) {
      qsq += query[i]! * query[i]!;
      qmax = Math.max(qmax, Math.abs(query[i]!));
    }
    const qNorm = Math.sqrt(qsq);
    const q8 = Int8Array.from(query, (x) => (qmax === 0 ? 0 : Math.round((x / qmax) * 127)));
    const keep = Math.min(s, limit * 2 + COARSE_MARGIN);
    const found = exactCosine(this.gathered.subarray(0, s * dims), q8, dims, keep);
    const out: RowDistance[] = [];
    for (let j = 0; j < found.keys.length; j++) {
      const row = Number(found.keys[j]);
      out.push({ row, d: this.fineDistance(slots[row]!, query, qNorm) });
    }
    return out;
  }

  /** Cosine distance from the fine copy of `slot` to the f32 query (as usearch's f32 kernel defines it). */
  private fineDistance(slot: number, query: Float32Array, qNorm: number): number {
    const denom = qNorm * this.norm[slot]!;
    if (denom === 0) return 1;
    const at = slot * this.dims;
    let c = 0;
    let f = 0;
    for (let i = 0; i < this.dims; i++) {
      c += query[i]! * this.coarse[at + i]!;
      f += query[i]! * this.fine[at + i]!;
    }
    return 1 - ((c + f / FINE_STEPS) * this.scale[slot]!) / denom;
  }
}
