import type { SourceLines } from './lines.js';
import type { Limits, Piece } from './pieces.js';
import { fits } from './windows.js';

/**
 * Post-processes the pieces of one nesting level (siblings under one parent):
 *
 * - Runs of adjacent tiny pieces (fewer than minChunkLines lines) are merged
 *   while the result fits maxChunkLines / maxChunkChars. The merged chunk
 *   takes symbol, kind, signature and doc from its first piece that has a
 *   symbol (else from its first piece), so three getters merge under the
 *   first getter's name and a class header merged with a getter stays the
 *   class.
 * - Gaps holding no word character (a lone `}` or `});` closing a split
 *   class) are folded into the preceding piece, or else the following one,
 *   when the result still fits: they are never worth a chunk of their own.
 */
export function mergeSiblings(pieces: Piece[], lines: SourceLines, limits: Limits): Piece[] {
  return absorbTrivialGaps(mergeTiny(pieces, lines, limits), lines, limits);
}

function isTiny(p: Piece, limits: Limits): boolean {
  return p.mergeable && p.end - p.start + 1 < limits.minChunkLines;
}

function mergeTiny(pieces: Piece[], lines: SourceLines, limits: Limits): Piece[] {
  const out: Piece[] = [];
  let run: Piece[] = [];
  const flush = () => {
    if (run.length === 1) out.push(run[0]!);
    else if (run.length > 1) out.push(combine(run, lines));
    run = [];
  };
  for (const p of pieces) {
    if (!isTiny(p, limits)) {
      flush();
      out.push(p);
      continue;
    }
    if (run.length > 0 && !fits(lines, run[0]!.start, p.end, limits)) flush();
    run.push(p);
  }
  flush();
  return out;
}

function combine(run: Piece[], lines: SourceLines): Piece {
  const first = run[0]!;
  const last = run[run.length - 1]!;
  const lead = run.find((p) => p.symbol !== null) ?? first;
  const merged: Piece = {
    symbol: lead.symbol,
    kind: lead.kind,
    start: first.start,
    end: last.end,
    from: lines.startOf(first.start),
    to: lines.endOf(last.end),
    mergeable: false,
    gap: run.every((p) => p.gap),
    sliced: false,
  };
  if (lead.signature) merged.signature = lead.signature;
  if (lead.doc) merged.doc = lead.doc;
  return merged;
}

const WORD = /[\p{L}\p{N}_$]/u;

function isTrivialGap(p: Piece, lines: SourceLines): boolean {
  return p.gap && !p.sliced && !WORD.test(lines.text.slice(p.from, p.to));
}

function absorbTrivialGaps(pieces: Piece[], lines: SourceLines, limits: Limits): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (isTrivialGap(p, lines)) {
      const prev = out[out.length - 1];
      if (prev && !prev.sliced && fits(lines, prev.start, p.end, limits)) {
        out[out.length - 1] = { ...prev, end: p.end, to: lines.endOf(p.end) };
        continue;
      }
      const next = pieces[i + 1];
      if (next && !next.sliced && fits(lines, p.start, next.end, limits)) {
        pieces[i + 1] = { ...next, start: p.start, from: lines.startOf(p.start) };
        continue;
      }
    }
    out.push(p);
  }
  return out;
}
