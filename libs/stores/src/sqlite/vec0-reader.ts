/**
 * Reads stored vectors out of the sqlite-vec table for exact search over a
 * filter's rows. vec0 answers a point read (`WHERE rowid = ?`) by opening the
 * row's chunk blob (1,024 vectors, 2 MB at 512 dimensions) and walking its
 * overflow pages to the offset, 0.1-0.7 ms a row here; reading a whole chunk
 * costs about as much as CHUNK_READ_ROWS point reads. So rows that share a
 * chunk with many others are sliced out of one chunk read, the rest are read
 * one by one.
 *
 * This knows vec0's shadow tables (sqlite-vec 0.1.9, pinned): `<t>_rowids`
 * (rowid -> chunk_id, chunk_offset) and `<t>_vector_chunks00` (chunk_id ->
 * the chunk's vectors, float32, one after another). hnsw-cache.test.ts
 * compares the answers with sqlite-vec's own exact KNN.
 */
import type { SqliteContext } from './sql.js';

/** A chunk read costs about this many point reads (2 MB chunks: 6-50 ms against 0.1-0.7 ms, measured loaded). */
export const CHUNK_READ_ROWS = 60;

/** Where a row's vector lies: its chunk and its offset in the chunk. */
export interface VectorLocation {
  chunk: number;
  offset: number;
}

/** Reads the vectors of `seqs` (located by `where`) into one matrix, row i for seqs[i]. */
export function readVectors(
  ctx: SqliteContext,
  table: string,
  dims: number,
  seqs: ArrayLike<number>,
  where: (i: number) => VectorLocation,
): Float32Array {
  const out = new Float32Array(seqs.length * dims);
  const byChunk = new Map<number, number[]>();
  for (let i = 0; i < seqs.length; i++) {
    const c = where(i).chunk;
    const list = byChunk.get(c);
    if (list === undefined) byChunk.set(c, [i]);
    else list.push(i);
  }
  const chunkStmt = ctx.stmt(`SELECT vectors FROM ${table}_vector_chunks00 WHERE rowid = ?`);
  const pointStmt = ctx.stmt(`SELECT embedding FROM ${table} WHERE rowid = ?`).pluck();
  const bytes = new Uint8Array(out.buffer);
  const width = dims * 4;
  // Byte copies: a blob's bytes need not be 4-aligned in its buffer.
  const copy = (i: number, blob: Buffer, byteOffset: number) => {
    bytes.set(blob.subarray(byteOffset, byteOffset + width), i * width);
  };
  for (const [chunk, rows] of byChunk) {
    if (rows.length >= CHUNK_READ_ROWS) {
      const blob = (chunkStmt.get(chunk) as { vectors: Buffer }).vectors;
      for (const i of rows) copy(i, blob, where(i).offset * width);
    } else {
      for (const i of rows) copy(i, pointStmt.get(BigInt(seqs[i]!)) as Buffer, 0);
    }
  }
  return out;
}

/**
 * Every stored vector of the rows in vector_rows, chunk by chunk: seq
 * keys[i] at i x dims of data. Scanning the vec0 table itself (`SELECT
 * rowid, embedding`) costs a point read per row, about 7x slower (2.8 s
 * against 0.4 s for 102,000 rows of 512 dimensions, loaded); a graph rebuild
 * and the quantized copy read every vector this way.
 */
export function readAllVectors(
  ctx: SqliteContext,
  table: string,
  dims: number,
): { keys: BigUint64Array; data: Float32Array } {
  const n = (ctx.stmt('SELECT count(*) AS n FROM vector_rows').get() as { n: number }).n;
  const keys = new BigUint64Array(n);
  const data = new Float32Array(n * dims);
  const bytes = new Uint8Array(data.buffer);
  const width = dims * 4;
  const chunkStmt = ctx.stmt(`SELECT vectors FROM ${table}_vector_chunks00 WHERE rowid = ?`);
  let i = 0;
  let current = -1;
  let blob: Buffer | null = null;
  for (const [seq, chunk, offset] of ctx
    .stmt(
      `SELECT r.seq, v.chunk_id, v.chunk_offset FROM vector_rows r
       JOIN ${table}_rowids v ON v.rowid = r.seq ORDER BY v.chunk_id, v.chunk_offset`,
    )
    .raw()
    .iterate() as Iterable<[number, number, number]>) {
    if (i >= n) break;
    if (chunk !== current) {
      blob = (chunkStmt.get(chunk) as { vectors: Buffer }).vectors;
      current = chunk;
    }
    keys[i] = BigInt(seq);
    bytes.set(blob!.subarray(offset * width, (offset + 1) * width), i * width);
    i++;
  }
  return { keys: keys.subarray(0, i), data: data.subarray(0, i * dims) };
}

/** What readVectors costs for rows in these chunks, in point reads. */
export function readCost(chunks: ArrayLike<number>): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < chunks.length; i++) counts.set(chunks[i]!, (counts.get(chunks[i]!) ?? 0) + 1);
  let cost = 0;
  for (const n of counts.values()) cost += Math.min(n, CHUNK_READ_ROWS);
  return cost;
}
