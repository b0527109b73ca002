import type { BraceLexis, StringForm } from './spec.js';

/** A comment's character range [from, to). */
export interface CommentSpan {
  from: number;
  to: number;
}

export interface MaskedText {
  /**
   * The text with every comment and literal blanked to spaces, line breaks
   * inside them too (a statement does not end inside a multi-line string), so
   * offsets are the source's and every brace, paren, keyword and line break
   * left in it is code.
   */
  code: string;
  /** The comments outside literals, in order: doc comments are looked up here. */
  comments: CommentSpan[];
}

/**
 * Blanks comments and literals out of brace-language source. Literals are
 * skipped as the language writes them (multi-line, raw, escaped, with code
 * interpolated), so a `}` in `"\(f("}"))"` or in a nested block comment never
 * closes a body.
 */
export function maskLiterals(text: string, lexis: BraceLexis): MaskedText {
  const scanner = new LiteralScanner(text, lexis);
  scanner.code(0, false);
  return { code: blank(text, scanner.blanks), comments: scanner.comments };
}

function blank(text: string, ranges: readonly CommentSpan[]): string {
  if (ranges.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const r of ranges) {
    parts.push(text.slice(at, r.from), ' '.repeat(r.to - r.from));
    at = r.to;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

class LiteralScanner {
  readonly blanks: CommentSpan[] = [];
  readonly comments: CommentSpan[] = [];
  /** Inside a literal (an interpolation): spans there are part of the literal's blank. */
  private literalDepth = 0;

  constructor(
    private readonly text: string,
    private readonly lexis: BraceLexis,
  ) {}

  /**
   * Scans code from `at`; inside an interpolation (`closing`) it stops after
   * the `)` that ends it. Returns where it stopped.
   */
  code(at: number, closing: boolean): number {
    const { text, lexis } = this;
    let parens = 0;
    let i = at;
    while (i < text.length) {
      const c = text[i]!;
      if (closing && c === '(') parens++;
      else if (closing && c === ')') {
        if (parens === 0) return i + 1;
        parens--;
      }
      const literalEnd = this.literalAt(i);
      if (literalEnd > i) {
        this.span(i, literalEnd, false);
        i = literalEnd;
        continue;
      }
      const commentEnd = this.commentAt(i);
      if (commentEnd > i) {
        this.span(i, commentEnd, true);
        i = commentEnd;
        continue;
      }
      // A raw delimiter that opens no string (`#if`) is code.
      if (lexis.rawDelimiter && c === lexis.rawDelimiter) {
        while (text[i] === lexis.rawDelimiter) i++;
        continue;
      }
      i++;
    }
    return i;
  }

  private span(from: number, to: number, comment: boolean): void {
    if (this.literalDepth > 0) return;
    this.blanks.push({ from, to });
    if (comment) this.comments.push({ from, to });
  }

  /** End of the comment starting at `i`, or `i` when none does. */
  private commentAt(i: number): number {
    const { text, lexis } = this;
    for (const open of lexis.lineComments) {
      if (text.startsWith(open, i)) {
        const nl = text.indexOf('\n', i);
        return nl < 0 ? text.length : nl;
      }
    }
    const block = lexis.blockComment;
    if (!block || !text.startsWith(block.open, i)) return i;
    let depth = 0;
    let j = i;
    while (j < text.length) {
      if (text.startsWith(block.close, j)) {
        j += block.close.length;
        if (--depth === 0 || !block.nests) return j;
      } else if (text.startsWith(block.open, j) && (block.nests || depth === 0)) {
        depth++;
        j += block.open.length;
      } else {
        j++;
      }
    }
    return text.length;
  }

  /** End of the literal starting at `i` (raw delimiters included), or `i` when none does. */
  private literalAt(i: number): number {
    const { text, lexis } = this;
    let hashes = 0;
    if (lexis.rawDelimiter) while (text[i + hashes] === lexis.rawDelimiter) hashes++;
    const at = i + hashes;
    for (const form of lexis.strings) {
      if (text.startsWith(form.open, at)) return this.literal(at + form.open.length, form, hashes);
    }
    return i;
  }

  private literal(at: number, form: StringForm, hashes: number): number {
    const { text } = this;
    const raw = hashes > 0 ? this.lexis.rawDelimiter!.repeat(hashes) : '';
    const closer = form.close + raw;
    const escaper = form.escape === undefined ? undefined : form.escape + raw;
    let i = at;
    while (i < text.length) {
      if (!form.multiline && text[i] === '\n') return i;
      if (escaper && text.startsWith(escaper, i)) {
        const next = i + escaper.length;
        if (form.interpolation && text.startsWith(form.interpolation, next)) {
          this.literalDepth++;
          i = this.code(next + form.interpolation.length, true);
          this.literalDepth--;
        } else {
          i = next + 1;
        }
        continue;
      }
      if (text.startsWith(closer, i)) return i + closer.length;
      i++;
    }
    return text.length;
  }
}
