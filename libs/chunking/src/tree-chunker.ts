import { CONTAINER_KINDS } from './languages/index.js';
import type { SourceLines } from './lines.js';
import type { Limits, Piece, UnitMeta } from './pieces.js';
import { mergeSiblings } from './split-merge.js';
import type { DefNode } from './symbols.js';
import { fits, linePiece, splitRange } from './windows.js';

/**
 * Lays definitions out as chunks covering every non-blank line of [from, to]:
 *
 * - a definition that fits the limits is one chunk (doc comment included);
 * - an oversized class-like definition (class, interface, trait, impl,
 *   struct, enum, module) with member definitions is laid out recursively:
 *   its members become chunks and the rest of it (header, fields, code
 *   between members) becomes chunks carrying the class's symbol and kind;
 * - any other oversized definition is split into overlapping windows that
 *   all carry its symbol, kind, signature and doc;
 * - code between definitions becomes gap chunks: kind 'block' with no
 *   symbol at top level, the container's symbol and kind inside one.
 *
 * Tiny siblings are merged afterwards, one nesting level at a time.
 */
export function layoutDefs(
  defs: readonly DefNode[],
  lines: SourceLines,
  limits: Limits,
  from = 1,
  to = lines.count,
  container: DefNode | null = null,
): Piece[] {
  const level: Piece[] = [];
  const gapMeta: UnitMeta = container
    ? { symbol: container.qualifiedName, kind: container.kind, signature: container.signature }
    : { symbol: null, kind: 'block' };
  const pushGap = (a: number, b: number) => {
    const range = lines.trim(a, b);
    if (!range) return;
    const [s, e] = range;
    const meta =
      container && a === from && container.doc ? { ...gapMeta, doc: container.doc } : gapMeta;
    if (fits(lines, s, e, limits)) {
      level.push(linePiece(lines, s, e, meta, { mergeable: true, gap: true }));
    } else {
      for (const p of splitRange(lines, s, e, meta, limits, limits.maxChunkLines)) {
        level.push({ ...p, gap: true });
      }
    }
  };

  let cursor = from;
  for (const def of defs) {
    // Definitions sharing a line with the previous one start where it ended.
    const start = Math.max(def.chunkStart, cursor);
    const end = Math.min(def.endLine, to);
    if (start > end) continue;
    if (start > cursor) pushGap(cursor, start - 1);
    const meta = unitMeta(def);
    const members = def.children.length > 0 && (def.spread || CONTAINER_KINDS.has(def.kind));
    if (!(def.spread && members) && fits(lines, start, end, limits)) {
      level.push(linePiece(lines, start, end, meta, { mergeable: true }));
    } else if (members) {
      for (const p of layoutDefs(def.children, lines, limits, start, end, def)) level.push(p);
    } else {
      for (const p of splitRange(lines, start, end, meta, limits, limits.maxChunkLines))
        level.push(p);
    }
    cursor = end + 1;
  }
  if (cursor <= to) pushGap(cursor, to);
  return mergeSiblings(level, lines, limits).map((p) =>
    p.mergeable ? { ...p, mergeable: false } : p,
  );
}

function unitMeta(def: DefNode): UnitMeta {
  const meta: UnitMeta = { symbol: def.qualifiedName, kind: def.kind };
  if (def.signature) meta.signature = def.signature;
  if (def.doc) meta.doc = def.doc;
  return meta;
}
