import type { SourceLines } from './lines.js';
import type { Limits, Piece } from './pieces.js';
import { mergeSiblings } from './split-merge.js';
import { fits, linePiece, splitRange } from './windows.js';

export interface Heading {
  /** First line of the heading (the text line of a setext heading). */
  line: number;
  level: number;
  text: string;
  /** Heading path, e.g. `Install > From source`. */
  path: string;
  /** Path of the enclosing heading, or null. */
  parent: string | null;
  /** Last line before the next heading of any level. */
  sectionEnd: number;
  /** Last line before the next heading of the same or a higher level. */
  subtreeEnd: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const NOT_PARAGRAPH = /^(?: {4}|\t| {0,3}(?:[-+*>|]|\d{1,9}[.)])(?:[ \t]|$)|<)/;

function lineText(lines: SourceLines, line: number): string {
  return lines.text.slice(lines.startOf(line), lines.endOf(line));
}

/** Finds ATX and setext headings, ignoring anything inside code fences and front matter. */
export function findHeadings(lines: SourceLines): Heading[] {
  const found: { line: number; level: number; text: string }[] = [];
  let first = 1;
  if (lines.count > 0 && lineText(lines, 1).trim() === '---') {
    for (let l = 2; l <= Math.min(lines.count, 500); l++) {
      const t = lineText(lines, l).trim();
      if (t === '---' || t === '...') {
        first = l + 1;
        break;
      }
    }
  }
  let fence: { char: string; len: number } | null = null;
  let paragraph = false;
  for (let l = first; l <= lines.count; l++) {
    const s = lineText(lines, l);
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(s);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.len) fence = null;
      continue;
    }
    const open = FENCE.exec(s);
    if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
      fence = { char: open[1]![0]!, len: open[1]!.length };
      paragraph = false;
      continue;
    }
    const atx = ATX.exec(s);
    if (atx) {
      const text = (atx[2] ?? '').replace(/(?:^|[ \t]+)#+$/, '').trim();
      found.push({ line: l, level: atx[1]!.length, text });
      paragraph = false;
      continue;
    }
    const setext = SETEXT.exec(s);
    if (setext && paragraph) {
      found.push({
        line: l - 1,
        level: setext[1]![0] === '=' ? 1 : 2,
        text: lineText(lines, l - 1).trim(),
      });
      paragraph = false;
      continue;
    }
    paragraph = s.trim() !== '' && !NOT_PARAGRAPH.test(s);
  }

  const headings: Heading[] = [];
  const stack: Heading[] = [];
  for (let i = 0; i < found.length; i++) {
    const h = found[i]!;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= h.level) stack.pop();
    const parent = stack[stack.length - 1] ?? null;
    const name = h.text || '(untitled)';
    const heading: Heading = {
      line: h.line,
      level: h.level,
      text: name,
      path: parent ? `${parent.path} > ${name}` : name,
      parent: parent?.path ?? null,
      sectionEnd: (found[i + 1]?.line ?? lines.count + 1) - 1,
      subtreeEnd: lines.count,
    };
    for (let j = i + 1; j < found.length; j++) {
      if (found[j]!.level <= h.level) {
        heading.subtreeEnd = found[j]!.line - 1;
        break;
      }
    }
    headings.push(heading);
    stack.push(heading);
  }
  return headings;
}

/** One chunk per heading section (plus any preamble), large sections windowed, tiny ones merged. */
export function markdownPieces(lines: SourceLines, headings: Heading[], limits: Limits): Piece[] {
  const level: Piece[] = [];
  const push = (from: number, to: number, heading: Heading | null) => {
    const range = lines.trim(from, to);
    if (!range) return;
    const meta = heading
      ? {
          symbol: heading.path,
          kind: 'section' as const,
          signature: lineText(lines, heading.line).trim(),
        }
      : { symbol: null, kind: 'section' as const };
    if (fits(lines, range[0], range[1], limits)) {
      level.push(linePiece(lines, range[0], range[1], meta, { mergeable: true }));
    } else {
      for (const p of splitRange(lines, range[0], range[1], meta, limits, limits.maxChunkLines))
        level.push(p);
    }
  };
  push(1, (headings[0]?.line ?? lines.count + 1) - 1, null);
  for (const h of headings) push(h.line, h.sectionEnd, h);
  return mergeSiblings(level, lines, limits);
}
