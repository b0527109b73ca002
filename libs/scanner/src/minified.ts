/*
 * Minified and bundled code, told by its shape rather than its name: a
 * `bundle.js` of one 900 KB line chunks into hundreds of unreadable windows
 * that match every query. Minifiers strip indentation, newlines and the
 * spaces around operators, so such a file is mostly very long lines with
 * almost no whitespace in them, yet dense with code punctuation. A long SQL
 * string or prose on one line keeps its spaces, a numeric data table is
 * mostly digits, a base64 blob or padding string has no code punctuation, and
 * a file where a long line is the exception rather than the bulk is ordinary
 * code: all left alone.
 */

/** Files smaller than this are never called minified: too small to matter. */
export const MINIFIED_MIN_CHARS = 2048;
/** A line longer than this counts as long. */
export const LONG_LINE_CHARS = 500;
/** Share of the file's characters that must sit in long lines. */
export const LONG_LINE_SHARE = 0.5;
/** Whitespace share of the long lines below which they read as minified. */
export const MAX_WHITESPACE_SHARE = 0.08;
/** Digit share of the long lines from which they read as a data table, not code. */
export const DATA_DIGIT_SHARE = 0.4;
/** Share of `; { } ( ) , = :` in the long lines below which they are no code at all. */
export const MIN_PUNCTUATION_SHARE = 0.05;

const PUNCTUATION: ReadonlySet<number> = new Set([...';{}(),=:'].map((c) => c.charCodeAt(0)));

/** Why `text` reads as minified or bundled code, or undefined when it does not. */
export function minifiedDetail(text: string): string | undefined {
  if (text.length < MINIFIED_MIN_CHARS) return undefined;
  const long: [number, number][] = [];
  let longChars = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end - start > LONG_LINE_CHARS) {
      long.push([start, end]);
      longChars += end - start;
    }
    start = end + 1;
  }
  if (longChars < text.length * LONG_LINE_SHARE) return undefined;
  let spaces = 0;
  let digits = 0;
  let punctuation = 0;
  for (const [from, to] of long) {
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0d) spaces++;
      else if (c >= 0x30 && c <= 0x39) digits++;
      else if (PUNCTUATION.has(c)) punctuation++;
    }
  }
  const whitespace = spaces / longChars;
  if (
    whitespace >= MAX_WHITESPACE_SHARE ||
    digits / longChars >= DATA_DIGIT_SHARE ||
    punctuation / longChars < MIN_PUNCTUATION_SHARE
  ) {
    return undefined;
  }
  const share = Math.round((longChars / text.length) * 100);
  return `minified or bundled content: ${share}% in lines over ${LONG_LINE_CHARS} characters, ${(whitespace * 100).toFixed(1)}% whitespace`;
}
