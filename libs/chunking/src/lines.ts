/**
 * Line index over a source text. Lines are 1-based. A line's content ends
 * before its terminator (`\n` or `\r\n`), so slices between line starts and
 * ends reproduce the source exactly, CRLF included, without a trailing `\r`.
 */
export class SourceLines {
  readonly text: string;
  readonly count: number;
  private readonly starts: Uint32Array;

  constructor(text: string) {
    this.text = text;
    let n = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
    // A final terminator does not open another line.
    if (text.length > 0 && text.charCodeAt(text.length - 1) === 10) n--;
    const starts = new Uint32Array(n + 1);
    let line = 1;
    for (let i = text.indexOf('\n'); i !== -1 && line < n; i = text.indexOf('\n', i + 1)) {
      starts[line++] = i + 1;
    }
    // A virtual start one past the end keeps endOf uniform for the last line.
    starts[n] = text.charCodeAt(text.length - 1) === 10 ? text.length : text.length + 1;
    this.starts = starts;
    this.count = text.length === 0 ? 0 : n;
  }

  /** Offset of the first character of `line`. */
  startOf(line: number): number {
    return this.starts[line - 1]!;
  }

  /** Offset just past the last content character of `line` (terminator excluded). */
  endOf(line: number): number {
    let end = this.starts[line]! - 1;
    if (end > this.starts[line - 1]! && this.text.charCodeAt(end - 1) === 13) end--;
    return end;
  }

  /** The line holding offset `at` (a terminator belongs to the line it ends). */
  lineOf(at: number): number {
    let lo = 0;
    let hi = Math.max(0, this.count - 1);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  length(line: number): number {
    return this.endOf(line) - this.startOf(line);
  }

  /** Characters of lines [from, to] including the terminators between them. */
  chars(from: number, to: number): number {
    return this.endOf(to) - this.startOf(from);
  }

  slice(from: number, to: number): string {
    return this.text.slice(this.startOf(from), this.endOf(to));
  }

  isBlank(line: number): boolean {
    const end = this.endOf(line);
    for (let i = this.startOf(line); i < end; i++) {
      const c = this.text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 13 && c !== 12 && c !== 11 && c !== 0xfeff && c !== 0xa0) {
        return false;
      }
    }
    return true;
  }

  /** [from, to] without blank lines at either end, or null when all blank. */
  trim(from: number, to: number): [number, number] | null {
    while (from <= to && this.isBlank(from)) from++;
    while (to >= from && this.isBlank(to)) to--;
    return from <= to ? [from, to] : null;
  }

  /** Longest line and the characters on lines longer than `threshold`. */
  longLines(threshold: number): { longest: number; charsInLong: number } {
    let longest = 0;
    let charsInLong = 0;
    for (let line = 1; line <= this.count; line++) {
      const len = this.starts[line]! - this.starts[line - 1]! - 1;
      if (len > longest) longest = len;
      if (len > threshold) charsInLong += len;
    }
    return { longest, charsInLong };
  }
}
