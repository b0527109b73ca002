/**
 * The quantized copy of every vector (quantized-rows.ts), written by the
 * index writer beside the HNSW graph as `<index>.hnsw.q8`, so that a
 * filtered search can scan a filter's rows from its first search instead of
 * walking the graph or reading vec0.
 *
 * Layout: a 32-byte header (magic, version, dimensions, a random id naming
 * this file), then segments of at most SEGMENT_ROWS rows, each a 24-byte
 * header (magic, row count, CRC-32 of its row data, of its coarse bytes and
 * of its fine bytes) followed by its rows' seqs (f64), scales and norms
 * (f32), coarse bytes and fine bytes. A rebuild writes a fresh file (new id)
 * to a temp name and renames it; a patch (`codesift watch`'s small commits)
 * appends segments for the new rows only. Rows deleted since are left in
 * place: they are keyed by vector_rows.seq, which is never reused, so a
 * reader asks only for the seqs the database still holds, and the next
 * rebuild drops them.
 *
 * Trust: the graph's sidecar (hnsw-cache.ts) records the file's id, its
 * length and row count at the generation it was saved at. A reader believes
 * the first `bytes` of a file whose header names that id and nothing beyond,
 * so a crash mid-append (bytes past the recorded end, or no sidecar at all)
 * never shows. A segment's row data and coarse bytes are checked against
 * their CRCs before they are used (the fine bytes carry one too, not
 * checked on the query path: see load()): a truncated or damaged file is
 * refused and the graph answers instead.
 *
 * A reader holds the seqs, scales and norms in memory (16 bytes a row) and
 * reads a segment's coarse bytes the first time a search needs one of its
 * rows (a directory filter touches few segments, a scattered language all
 * of them: dims bytes a row, 51 MB at 100k rows of 512 dimensions); the fine
 * bytes stay on disk and are read for the re-rank's few candidates only.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { type QuantizedSource, quantizeRow } from './quantized-rows.js';

/**
 * zlib's crc32, loaded on its first use: node:zlib costs 3-7 ms of every
 * process that imports this module, and a keyword-only search never reads
 * a quantized copy.
 */
let zlibCrc32: ((data: Uint8Array) => number) | undefined;
function crc32(data: Uint8Array): number {
  zlibCrc32 ??= process.getBuiltinModule('node:zlib').crc32;
  return zlibCrc32(data);
}

/** Rows per segment: the unit a reader loads (2 MB of coarse bytes at 512 dimensions). */
export const SEGMENT_ROWS = 4096;
const MAGIC = 0x38515343; // "CSQ8", little-endian
const SEGMENT_MAGIC = 0x47455351; // "QSEG"
const VERSION = 1;
const HEADER_BYTES = 32;
const SEGMENT_HEADER_BYTES = 24;

/** What the graph's sidecar records of the file. */
export interface QuantizedStamp {
  /** The random id in the file's header (hex). */
  id: string;
  /** Bytes of the file a reader may use. */
  bytes: number;
  /** Rows in those bytes. */
  rows: number;
}

/** The rows to write: seq `keys[i]` for the vector at i × dims of `data`. */
export interface RowsToWrite {
  keys: ArrayLike<bigint | number>;
  data: Float32Array;
}

/** The bytes of one segment of rows [from, to) of `rows`. */
function encodeSegment(rows: RowsToWrite, dims: number, from: number, to: number): Uint8Array {
  const c = to - from;
  const metaAt = SEGMENT_HEADER_BYTES;
  const coarseAt = metaAt + 16 * c;
  const fineAt = coarseAt + c * dims;
  const buf = new ArrayBuffer(fineAt + c * dims);
  const seqs = new Float64Array(buf, metaAt, c);
  const scales = new Float32Array(buf, metaAt + 8 * c, c);
  const norms = new Float32Array(buf, metaAt + 12 * c, c);
  const coarse = new Int8Array(buf, coarseAt, c * dims);
  const fine = new Int8Array(buf, fineAt, c * dims);
  for (let j = 0; j < c; j++) {
    seqs[j] = Number(rows.keys[from + j]!);
    const q = quantizeRow(rows.data, (from + j) * dims, dims, coarse, fine, j * dims);
    scales[j] = q.scale;
    norms[j] = q.norm;
  }
  const bytes = new Uint8Array(buf);
  const head = new DataView(buf, 0, SEGMENT_HEADER_BYTES);
  head.setUint32(0, SEGMENT_MAGIC, true);
  head.setUint32(4, c, true);
  head.setUint32(8, crc32(bytes.subarray(metaAt, coarseAt)), true);
  head.setUint32(12, crc32(bytes.subarray(coarseAt, fineAt)), true);
  head.setUint32(16, crc32(bytes.subarray(fineAt)), true);
  return bytes;
}

/** Writes `rows` as segments at `position` of `fd`; returns the end. */
function writeSegments(fd: number, rows: RowsToWrite, dims: number, position: number): number {
  let at = position;
  for (let from = 0; from < rows.keys.length; from += SEGMENT_ROWS) {
    const seg = encodeSegment(rows, dims, from, Math.min(rows.keys.length, from + SEGMENT_ROWS));
    writeFully(fd, seg, at);
    at += seg.length;
  }
  return at;
}

function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) {
    done += writeSync(fd, bytes, done, bytes.length - done, position + done);
  }
}

/** `length` bytes at `position`, or null when the file ends first. */
function readAt(fd: number, length: number, position: number): Uint8Array | null {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, done, length - done, position + done);
    if (n === 0) return null;
    done += n;
  }
  return out;
}

/** Writes a new file of `rows` (temp name, then rename) and returns its stamp. */
export function writeQuantizedFile(file: string, dims: number, rows: RowsToWrite): QuantizedStamp {
  const id = randomBytes(16);
  const head = new Uint8Array(HEADER_BYTES);
  const view = new DataView(head.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, dims, true);
  head.set(id, 16);
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  let bytes: number;
  try {
    writeFully(fd, head, 0);
    bytes = writeSegments(fd, rows, dims, HEADER_BYTES);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, file);
  return { id: id.toString('hex'), bytes, rows: rows.keys.length };
}

/** The header of `fd`, when it is a copy of `dims` dimensions named `id`. */
function headerMatches(fd: number, dims: number, id: string): boolean {
  const head = readAt(fd, HEADER_BYTES, 0);
  if (head === null) return false;
  const view = new DataView(head.buffer);
  return (
    view.getUint32(0, true) === MAGIC &&
    view.getUint32(4, true) === VERSION &&
    view.getUint32(8, true) === dims &&
    Buffer.from(head.subarray(16)).toString('hex') === id
  );
}

/** Whether the open file is the copy `stamp` describes: its header, and at least its length. */
function isStamped(fd: number, dims: number, stamp: QuantizedStamp): boolean {
  return headerMatches(fd, dims, stamp.id) && fstatSync(fd).size >= stamp.bytes;
}

/** Whether `file` is the copy `stamp` describes (isStamped). */
export function stampMatches(file: string, dims: number, stamp: QuantizedStamp): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    return isStamped(fd, dims, stamp);
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends `rows` to the file `stamp` describes, after cutting anything past
 * its recorded end (what a crashed append left); returns the new stamp, or
 * null when the file is not the one stamped (then write a new one).
 * Readers use only the bytes their stamp covers, which this never changes.
 */
export function appendQuantized(
  file: string,
  dims: number,
  stamp: QuantizedStamp,
  rows: RowsToWrite,
): QuantizedStamp | null {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch {
    return null;
  }
  try {
    if (!isStamped(fd, dims, stamp)) return null;
    ftruncateSync(fd, stamp.bytes);
    const bytes = writeSegments(fd, rows, dims, stamp.bytes);
    return { id: stamp.id, bytes, rows: stamp.rows + rows.keys.length };
  } finally {
    closeSync(fd);
  }
}

interface Segment {
  /** Slot of its first row. */
  first: number;
  count: number;
  /** File offsets of its coarse and fine bytes. */
  coarseAt: number;
  fineAt: number;
  crcCoarse: number;
  /** Its coarse bytes once a search needed them. */
  coarse: Int8Array | null;
}

/** A reader of the file: seqs, scales and norms in memory, coarse bytes as needed. */
export class QuantizedFile implements QuantizedSource {
  private slotOf = new Int32Array(0);
  private segOf = new Uint32Array(0);
  private scales = new Float32Array(0);
  private norms = new Float32Array(0);
  private readonly segments: Segment[] = [];
  private used = 0;
  private end = HEADER_BYTES;
  /** A segment failed its check: the file is not to be used. */
  private broken = false;

  private constructor(
    private readonly fd: number,
    readonly dims: number,
    readonly id: string,
  ) {}

  /** The file at `file` as `stamp` describes it, or null (missing, another file, damaged). */
  static open(file: string, dims: number, stamp: QuantizedStamp): QuantizedFile | null {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return null;
    }
    const copy = new QuantizedFile(fd, dims, stamp.id);
    let ok = false;
    try {
      ok = headerMatches(fd, dims, stamp.id) && copy.extend(stamp);
    } catch {
      // Unreadable: as good as absent.
    }
    if (ok) return copy;
    copy.close();
    return null;
  }

  /** Rows held. */
  get rows(): number {
    return this.used;
  }

  /**
   * Takes in the segments a later stamp of the same file adds (the writer
   * appended); false when they do not check out (then drop this reader).
   */
  extend(stamp: QuantizedStamp): boolean {
    if (this.broken || stamp.id !== this.id || stamp.bytes < this.end) return false;
    if (fstatSync(this.fd).size < stamp.bytes) return false;
    let at = this.end;
    let rows = this.used;
    while (at < stamp.bytes) {
      const head = readAt(this.fd, SEGMENT_HEADER_BYTES, at);
      if (head === null) return false;
      const view = new DataView(head.buffer);
      const c = view.getUint32(4, true);
      const size = SEGMENT_HEADER_BYTES + 16 * c + 2 * c * this.dims;
      if (view.getUint32(0, true) !== SEGMENT_MAGIC || c === 0 || at + size > stamp.bytes) {
        return false;
      }
      const meta = readAt(this.fd, 16 * c, at + SEGMENT_HEADER_BYTES);
      if (meta === null || crc32(meta) !== view.getUint32(8, true)) return false;
      this.addSegment(meta, c, at + SEGMENT_HEADER_BYTES + 16 * c, view);
      rows += c;
      at += size;
    }
    // The stamp's count disagrees with the segments: not the file it describes.
    if (rows !== stamp.rows) return false;
    this.used = rows;
    this.end = at;
    return true;
  }

  private addSegment(meta: Uint8Array, c: number, coarseAt: number, head: DataView): void {
    const seg: Segment = {
      first: this.segments.length === 0 ? 0 : this.lastEnd(),
      count: c,
      coarseAt,
      fineAt: coarseAt + c * this.dims,
      crcCoarse: head.getUint32(12, true),
      coarse: null,
    };
    const need = seg.first + c;
    if (need > this.scales.length) {
      const cap = Math.max(need, this.scales.length * 2, 1024);
      const grow = <T extends Float32Array | Uint32Array>(old: T, make: (n: number) => T): T => {
        const next = make(cap);
        next.set(old);
        return next;
      };
      this.scales = grow(this.scales, (n) => new Float32Array(n));
      this.norms = grow(this.norms, (n) => new Float32Array(n));
      this.segOf = grow(this.segOf, (n) => new Uint32Array(n));
    }
    const seqs = new Float64Array(meta.buffer, 0, c);
    const scales = new Float32Array(meta.buffer, 8 * c, c);
    const norms = new Float32Array(meta.buffer, 12 * c, c);
    this.scales.set(scales, seg.first);
    this.norms.set(norms, seg.first);
    this.segOf.fill(this.segments.length, seg.first, need);
    let maxSeq = 0;
    for (let j = 0; j < c; j++) maxSeq = Math.max(maxSeq, seqs[j]!);
    if (maxSeq >= this.slotOf.length) {
      const next = new Int32Array(Math.max(maxSeq + 1, this.slotOf.length * 2)).fill(-1);
      next.set(this.slotOf);
      this.slotOf = next;
    }
    for (let j = 0; j < c; j++) this.slotOf[seqs[j]!] = seg.first + j;
    this.segments.push(seg);
  }

  private lastEnd(): number {
    const last = this.segments[this.segments.length - 1]!;
    return last.first + last.count;
  }

  slot(seq: number): number {
    return seq < this.slotOf.length ? this.slotOf[seq]! : -1;
  }

  /**
   * Whether every seq is held and their segments' coarse bytes are loaded
   * and check out (loading them as needed). False means: answer another way.
   */
  ready(seqs: ArrayLike<number>): boolean {
    if (this.broken) return false;
    for (let i = 0; i < seqs.length; i++) {
      const slot = this.slot(seqs[i]!);
      if (slot < 0) return false;
      const seg = this.segments[this.segOf[slot]!]!;
      if (seg.coarse === null && !this.load(seg)) {
        this.broken = true;
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a segment's coarse bytes and checks them. The fine bytes are not
   * read here (that would double what a first search reads: 100 against 50 MB
   * at 100k rows), so their CRC is not checked on the query path: a damaged
   * fine byte moves one candidate's distance by at most one coarse step in
   * one dimension (about 1e-3 in cosine at 512 dimensions), which can swap
   * near neighbours only.
   */
  private load(seg: Segment): boolean {
    const coarse = readAt(this.fd, seg.count * this.dims, seg.coarseAt);
    if (coarse === null || crc32(coarse) !== seg.crcCoarse) return false;
    seg.coarse = new Int8Array(coarse.buffer);
    return true;
  }

  coarse(slot: number): Int8Array {
    const seg = this.segments[this.segOf[slot]!]!;
    if (seg.coarse === null) throw new Error('QuantizedFile.coarse: call ready() first');
    const at = (slot - seg.first) * this.dims;
    return seg.coarse.subarray(at, at + this.dims);
  }

  fine(slot: number, out: Int8Array): void {
    const seg = this.segments[this.segOf[slot]!]!;
    const n = readSync(this.fd, out, 0, this.dims, seg.fineAt + (slot - seg.first) * this.dims);
    // The writer never shortens what a stamp covers: a short read means the file was replaced badly.
    if (n !== this.dims) throw new Error('the quantized copy is shorter than its stamp');
  }

  scale(slot: number): number {
    return this.scales[slot]!;
  }

  norm(slot: number): number {
    return this.norms[slot]!;
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
  }
}
