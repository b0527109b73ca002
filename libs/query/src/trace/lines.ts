/**
 * The lines of a pasted text with their offsets, as the trace scan walks
 * them one at a time.
 */

/** Lines longer than this are never trace lines, which bounds the regex work per line. */
export const MAX_TRACE_LINE = 2000;

/** One line of the input: its text, without the line break, and where it starts and ends. */
export interface Line {
  start: number;
  end: number;
  text: string;
}

export function splitLines(input: string): Line[] {
  const lines: Line[] = [];
  let s = 0;
  while (s <= input.length) {
    let e = input.indexOf('\n', s);
    if (e < 0) e = input.length;
    const textEnd = e > s && input.charCodeAt(e - 1) === 13 ? e - 1 : e;
    lines.push({ start: s, end: textEnd, text: input.slice(s, textEnd) });
    s = e + 1;
  }
  return lines;
}

/** Leading spaces and tabs of a line. */
export function indentOf(text: string): number {
  let k = 0;
  while (k < text.length && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
  return k;
}
