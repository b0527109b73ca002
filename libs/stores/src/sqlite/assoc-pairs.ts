/**
 * The compact form of a bridge_assoc row (bridge-assoc.ts): (word id,
 * count) pairs in ascending id order, each as two unsigned LEB128 varints,
 * the id as its difference from the previous one. Ids and counts are mostly
 * under 128 and 16,384, so a pair takes two to four bytes where the text
 * "word count" took about eleven.
 */

/** Encodes pairs (any order) as the row's bytes. */
export function encodePairs(pairs: readonly (readonly [id: number, count: number])[]): Buffer {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  const bytes: number[] = [];
  let prev = 0;
  for (const [id, count] of sorted) {
    if (!(Number.isInteger(id) && id > prev && Number.isInteger(count) && count > 0)) {
      throw new RangeError(`bridge pair ids must be distinct positive integers, counts positive`);
    }
    varint(bytes, id - prev);
    varint(bytes, count);
    prev = id;
  }
  return Buffer.from(bytes);
}

/** Calls `each` with every (id, count) pair of a row, in id order. */
export function decodePairs(row: Uint8Array, each: (id: number, count: number) => void): void {
  let at = 0;
  let id = 0;
  const next = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = row[at++];
      if (b === undefined) throw new RangeError('bridge pair row ends inside a number');
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < row.length) {
    id += next();
    each(id, next());
  }
}

function varint(out: number[], n: number): void {
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}
