import type { SourceLines } from './lines.js';
import type { Limits, Piece, UnitMeta } from './pieces.js';

export function linePiece(
  lines: SourceLines,
  start: number,
  end: number,
  meta: UnitMeta,
  opts: { mergeable?: boolean; gap?: boolean } = {},
): Piece {
  return {
    ...meta,
    start,
    end,
    from: lines.startOf(start),
    to: lines.endOf(end),
    mergeable: opts.mergeable ?? false,
    gap: opts.gap ?? false,
    sliced: false,
  };
}

export function fits(lines: SourceLines, start: number, end: number, limits: Limits): boolean {
  return end - start + 1 <= limits.maxChunkLines && lines.chars(start, end) <= limits.maxChunkChars;
}

/**
 * Splits lines [start, end] into windows of at most `windowLines` lines and
 * `maxChunkChars` characters. Consecutive windows share `overlapLines` lines,
 * fewer only where the shared lines plus the next line would not fit the
 * character budget (so every window makes progress). A line longer than the
 * budget on its own is cut into character slices.
 */
export function splitRange(
  lines: SourceLines,
  start: number,
  end: number,
  meta: UnitMeta,
  limits: Limits,
  windowLines: number,
): Piece[] {
  const maxChars = limits.maxChunkChars;
  const size = Math.max(1, windowLines);
  const out: Piece[] = [];
  let i = start;
  while (i <= end) {
    if (lines.length(i) > maxChars) {
      sliceLine(lines, i, meta, maxChars, out);
      i++;
      continue;
    }
    let j = i;
    while (j < end && j + 2 - i <= size && lines.chars(i, j + 1) <= maxChars) j++;
    out.push(linePiece(lines, i, j, meta));
    if (j >= end) break;
    let overlap = Math.min(limits.overlapLines, j - i, size - 1);
    while (overlap > 0 && lines.chars(j - overlap + 1, j + 1) > maxChars) overlap--;
    i = j - overlap + 1;
  }
  return out;
}

const BREAK_AFTER = new Set([' ', '\t', ';', ',', '{', '}', '(', ')', '>', '|', '&']);

/** Cuts one over-long line into pieces, preferring to cut after a space or punctuation. */
function sliceLine(
  lines: SourceLines,
  line: number,
  meta: UnitMeta,
  maxChars: number,
  out: Piece[],
): void {
  const text = lines.text;
  const end = lines.endOf(line);
  const budget = Math.max(16, maxChars);
  let from = lines.startOf(line);
  while (from < end) {
    let to = Math.min(from + budget, end);
    if (to < end) {
      const floor = to - Math.floor(budget / 4);
      for (let k = to; k > floor; k--) {
        if (BREAK_AFTER.has(text[k - 1]!)) {
          to = k;
          break;
        }
      }
      // Never separate a surrogate pair.
      const c = text.charCodeAt(to - 1);
      if (c >= 0xd800 && c <= 0xdbff) to--;
    }
    out.push({
      ...meta,
      start: line,
      end: line,
      from,
      to,
      mergeable: false,
      gap: false,
      sliced: true,
    });
    from = to;
  }
}

/** Plain line windows over the whole file: the fallback for every non-structural language. */
export function windowPieces(lines: SourceLines, limits: Limits): Piece[] {
  const range = lines.trim(1, lines.count);
  if (!range) return [];
  return splitRange(
    lines,
    range[0],
    range[1],
    { symbol: null, kind: 'window' },
    limits,
    limits.windowLines,
  );
}
