/**
 * Minimal protobuf wire-format encoder: just enough to serialise ONNX's
 * ModelProto. Messages are built bottom-up: encode a child with its own
 * writer, then embed the bytes as a length-delimited field of the parent.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED32 = 5;
const WIRE_LENGTH_DELIMITED = 2;

const textEncoder = new TextEncoder();

export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private scratch = new Uint8Array(64);
  private scratchUsed = 0;
  private total = 0;

  /** Field with a non-negative or negative integer (int32/int64/enum). */
  varint(field: number, value: number | bigint): this {
    this.tag(field, WIRE_VARINT);
    this.rawVarint(BigInt.asUintN(64, BigInt(value)));
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, textEncoder.encode(value));
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.rawVarint(BigInt(value.byteLength));
    this.push(value);
    return this;
  }

  message(field: number, child: ProtoWriter): this {
    return this.bytes(field, child.finish());
  }

  finish(): Uint8Array {
    this.flushScratch();
    const out = new Uint8Array(this.total);
    let offset = 0;
    for (const c of this.chunks) {
      out.set(c, offset);
      offset += c.byteLength;
    }
    return out;
  }

  private tag(field: number, wire: number): void {
    this.rawVarint(BigInt((field << 3) | wire));
  }

  private rawVarint(v: bigint): void {
    if (this.scratchUsed + 10 > this.scratch.length) this.flushScratch();
    let rest = v;
    while (rest >= 0x80n) {
      this.scratch[this.scratchUsed++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.scratch[this.scratchUsed++] = Number(rest);
  }

  private push(b: Uint8Array): void {
    this.flushScratch();
    // Large payloads (weights) are referenced, not copied, until finish().
    this.chunks.push(b);
    this.total += b.byteLength;
  }

  private flushScratch(): void {
    if (this.scratchUsed === 0) return;
    this.chunks.push(this.scratch.slice(0, this.scratchUsed));
    this.total += this.scratchUsed;
    this.scratchUsed = 0;
  }
}
