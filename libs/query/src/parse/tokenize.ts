/**
 * The query tokenizer: one left-to-right pass over a region of the input
 * that emits term, phrase and filter nodes. Every step moves forward and
 * look-ahead for a closing quote is either cached (single quotes, see
 * SingleQuoteCloser in quotes.ts) or done once with indexOf and remembered
 * when it fails, so the pass is linear in the region length.
 */
import type { PhraseNode, QueryNode, TermNode, TraceRole } from '../types.js';
import {
  isAsciiAlnum,
  isIdentStart,
  isLetterLike,
  isSpace,
  isTokenChar,
  isTrailingPunct,
} from './chars.js';
import { mergeCitations } from './citations.js';
import { readFilter } from './filters.js';
import { SingleQuoteCloser } from './quotes.js';
import { classifyToken } from './shape.js';
import { isFillerWord } from './words.js';

export interface TokenizeOptions {
  /** Recognise `lang:`/`path:` filters (off inside phrases and error messages). */
  filters: boolean;
  /** Recognise quoted phrases (off inside phrases). */
  phrases: boolean;
  /** Role stamped on every term (error messages). */
  trace?: TraceRole;
}

function makeTerm(
  input: string,
  start: number,
  end: number,
  value: string,
  opts: TokenizeOptions,
  call: boolean,
): TermNode {
  const c = classifyToken(value);
  let shape = c.shape;
  if (
    call &&
    shape !== 'path' &&
    shape !== 'url' &&
    shape !== 'number' &&
    shape !== 'kebab' &&
    !isFillerWord(value)
  ) {
    shape = 'call';
  }
  // A lone ASCII letter (`i`, `x`, the `a` of "a function") is noise, as in the analyzer.
  const stop =
    shape === 'word' &&
    (isFillerWord(c.value) || (c.value.length === 1 && c.value.charCodeAt(0) < 128));
  const node: TermNode = {
    kind: 'term',
    text: input.slice(start, end),
    start,
    end,
    value: c.value,
    shape,
    stop,
  };
  if (c.line !== undefined) node.line = c.line;
  if (c.column !== undefined) node.column = c.column;
  if (opts.trace !== undefined) node.trace = opts.trace;
  return node;
}

/** Trims edge punctuation off the raw token [s, e); returns the kept range or null. */
function trimToken(input: string, s: number, e: number): [number, number] | null {
  const hasSlash = input.slice(s, e).includes('/');
  for (;;) {
    if (s >= e) return null;
    const c = input.charCodeAt(s);
    if (c === 45 || c === 58 || c === 35) {
      s++;
    } else if (c === 64) {
      // `@codesift/analysis` is a package name; `@Override` is an annotation whose name is the term.
      if (hasSlash) break;
      s++;
    } else if (c === 126) {
      if (s + 1 < e && input.charCodeAt(s + 1) === 47) break; // `~/x`
      s++;
    } else if (c === 46) {
      let k = s;
      while (k < e && input.charCodeAt(k) === 46) k++;
      if (k < e && input.charCodeAt(k) === 47 && k - s <= 2) break; // `./x`, `../x`
      if (k - s === 1 && k < e && isLetterLike(input.charCodeAt(k))) break; // `.env`
      s = k;
    } else {
      break;
    }
  }
  while (e > s && isTrailingPunct(input.charCodeAt(e - 1))) e--;
  if (s >= e) return null;
  for (let k = s; k < e; k++) {
    const c = input.charCodeAt(k);
    if (isAsciiAlnum(c) || c >= 128) return [s, e];
  }
  return null; // only connectors: `/`, `::`, `--`
}

/**
 * Tokenizes input[start, end) and appends the nodes to `out`, in order.
 * `noStraightAfter`/`noCurlyAfter` remember that no closing double quote
 * exists after an offset, so a text full of stray quotes is scanned once.
 */
export function tokenize(
  input: string,
  start: number,
  end: number,
  opts: TokenizeOptions,
  out: QueryNode[],
): void {
  const from = out.length;
  let noStraightAfter = Number.POSITIVE_INFINITY;
  let noCurlyAfter = Number.POSITIVE_INFINITY;
  // Made on first use: most regions (and every phrase's inside) have no single quotes to close.
  let straight: SingleQuoteCloser | null = null;
  let curly: SingleQuoteCloser | null = null;
  let i = start;
  while (i < end) {
    const c = input.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const atBoundary = i === start || isSpace(input.charCodeAt(i - 1));
    if (opts.phrases && (c === 34 || c === 0x201c)) {
      const straightQuote = c === 34;
      const close =
        i < (straightQuote ? noStraightAfter : noCurlyAfter)
          ? input.indexOf(straightQuote ? '"' : '\u201d', i + 1)
          : -1;
      if (close < 0 || close >= end) {
        if (straightQuote) noStraightAfter = i;
        else noCurlyAfter = i;
        i++;
        continue;
      }
      if (close > i + 1) out.push(makePhrase(input, i, close, '"'));
      i = close + 1;
      continue;
    }
    if (opts.phrases && (c === 39 || c === 0x2018)) {
      const prev = i > start ? input.charCodeAt(i - 1) : 32;
      if (!isAsciiAlnum(prev)) {
        if (c === 39) straight ??= new SingleQuoteCloser(input, end, 39);
        else curly ??= new SingleQuoteCloser(input, end, 0x2019);
        const close = (c === 39 ? straight : curly)!.close(i);
        if (close > 0) {
          out.push(makePhrase(input, i, close, "'"));
          i = close + 1;
          continue;
        }
      }
      i++;
      continue;
    }
    if (!isTokenChar(c)) {
      i++;
      continue;
    }
    // Only `-`, `l`, `p` and `f` can start a filter key: skip the regex otherwise.
    if (opts.filters && atBoundary && (c === 45 || ((c | 32) >= 102 && (c | 32) <= 112))) {
      const f = readFilter(input, i, end);
      if (f) {
        out.push(f[0]);
        i = f[1];
        continue;
      }
    }
    let j = i;
    while (j < end) {
      const d = input.charCodeAt(j);
      if (isTokenChar(d)) {
        j++;
      } else if (
        (d === 39 || d === 0x2019) &&
        j > i &&
        j + 1 < end &&
        isLetterLike(input.charCodeAt(j - 1)) &&
        isLetterLike(input.charCodeAt(j + 1))
      ) {
        j++; // `don't`, `user’s`
      } else if (
        d === 62 &&
        j - 1 > i &&
        input.charCodeAt(j - 1) === 45 &&
        isWordEnd(input.charCodeAt(j - 2)) &&
        j + 1 < end &&
        isIdentStart(input.charCodeAt(j + 1))
      ) {
        j++; // `$this->rate`, `Foo->bar`: member access (PHP, C++) joins one name
      } else {
        break;
      }
    }
    if (j > i && j < end && keepsPredicateSuffix(input, start, end, i, j)) j++;
    const range = trimToken(input, i, j);
    if (range) {
      const s = range[0];
      let e = range[1];
      let call = false;
      if (e === j && j < end && input.charCodeAt(j) === 40) {
        const plural = input.startsWith('(s)', j) || input.startsWith('(es)', j);
        if (!plural) {
          call = true;
          if (input.charCodeAt(j + 1) === 41) e = j + 2;
        }
      }
      const value = call && e === j + 2 ? input.slice(s, j) : input.slice(s, e);
      out.push(makeTerm(input, s, e, value, opts, call));
      if (e > j) j = e;
    }
    i = j > i ? j : i + 1;
  }
  mergeCitations(input, out, from);
}

/** A character a name can end with (before `->`, `?` or `!`). */
function isWordEnd(c: number): boolean {
  return isAsciiAlnum(c) || c === 95 || c >= 128;
}

/**
 * Whether the `?` or `!` at input[j] ends the name input[i, j) (Ruby's
 * `empty?` and `save!`, Rust's `println!`) rather than the sentence. Prose
 * ends questions and exclamations the same way, so the suffix is kept only
 * where a name is certain: in a qualified name (`Array#empty?`,
 * `user.save!`), before a call's parenthesis (`println!(`), or when the
 * name is the whole query. Never before `.` or `=` (`a?.b`, `a != b`).
 */
function keepsPredicateSuffix(
  input: string,
  start: number,
  end: number,
  i: number,
  j: number,
): boolean {
  const c = input.charCodeAt(j);
  if (c !== 63 && c !== 33) return false;
  if (!isWordEnd(input.charCodeAt(j - 1))) return false;
  const next = j + 1 < end ? input.charCodeAt(j + 1) : 32;
  if (next === 40) return true;
  if (!(isSpace(next) || next === 41 || next === 44 || next === 59)) return false;
  // A qualified name, not a version (`1.7?`).
  if (isIdentStart(input.charCodeAt(i)) && /[.#]|::|->/.test(input.slice(i, j))) return true;
  return input.slice(start, i).trim() === '' && input.slice(j + 1, end).trim() === '';
}

function makePhrase(input: string, open: number, close: number, quote: '"' | "'"): PhraseNode {
  const terms: QueryNode[] = [];
  tokenize(input, open + 1, close, { filters: false, phrases: false }, terms);
  return {
    kind: 'phrase',
    text: input.slice(open, close + 1),
    start: open,
    end: close + 1,
    value: input.slice(open + 1, close),
    quote,
    terms: terms.filter((n): n is TermNode => n.kind === 'term'),
  };
}
