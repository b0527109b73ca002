/**
 * Closing quotes for single-quoted phrases, found in one pass over the
 * text however many apostrophes it holds.
 */
import { isAsciiAlnum, isSpace } from './chars.js';

/** Longest single-quoted phrase; a quote further away from its partner is just an apostrophe. */
export const QUOTE_LOOKAHEAD = 256;

/** Whether the quote at `k` can close a phrase: it is followed by a non-word character. */
function canClose(input: string, k: number, end: number): boolean {
  const next = k + 1 < end ? input.charCodeAt(k + 1) : 32;
  // `it's` is an apostrophe; a closing quote is followed by a non-word character.
  return !isAsciiAlnum(next) && !(next >= 128 && !isSpace(next));
}

/**
 * Finds closing single quotes for openers met left to right. The first
 * quote at or after a position that can close is the same whichever opener
 * asks, so the answer is cached and the input scanned once overall, even
 * for text made of thousands of apostrophes.
 */
export class SingleQuoteCloser {
  private at = -2; // cached closer for searches starting at or after `from`; -1: none before `end`
  private from = -1;
  private newline = -2;

  constructor(
    private readonly input: string,
    private readonly end: number,
    private readonly quote: number,
  ) {}

  /** Offset of the quote closing an opener at `open`, or -1. */
  close(open: number): number {
    const s = open + 1;
    if (this.at === -2 || (this.at !== -1 && this.at < s) || s < this.from) {
      this.from = s;
      this.at = -1;
      for (let k = s; k < this.end; k++) {
        if (this.input.charCodeAt(k) === this.quote && canClose(this.input, k, this.end)) {
          this.at = k;
          break;
        }
      }
    }
    const k = this.at;
    if (k < 0 || k === s || k - open > QUOTE_LOOKAHEAD) return -1;
    if (this.newline !== -1 && this.newline < open) {
      this.newline = this.input.indexOf('\n', open);
      if (this.newline >= this.end) this.newline = -1;
    }
    if (this.newline !== -1 && this.newline < k) return -1;
    return k;
  }
}
