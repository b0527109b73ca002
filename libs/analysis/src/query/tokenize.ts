/**
 * The query tokenizer: one left-to-right pass over a region of the input
 * that emits term, phrase and filter nodes. Every step moves forward and
 * look-ahead for a closing quote is either cached (single quotes, see
 * SingleQuoteCloser) or done once with indexOf and remembered when it
 * fails, so the pass is linear in the region length.
 */
import { classifyToken } from './shape.js';
import type { FilterNode, PhraseNode, QueryNode, TermNode, TraceRole } from './types.js';
import { isFillerWord } from './words.js';

/** Longest single-quoted phrase; a quote further away from its partner is just an apostrophe. */
const QUOTE_LOOKAHEAD = 256;

/** Language aliases users type in `lang:` to the ids detectLanguage returns. */
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  py: 'python',
  python3: 'python',
  ts: 'typescript',
  js: 'javascript',
  node: 'javascript',
  jsx: 'javascript',
  golang: 'go',
  rs: 'rust',
  kt: 'kotlin',
  'c++': 'cpp',
  cxx: 'cpp',
  'c#': 'csharp',
  cs: 'csharp',
  rb: 'ruby',
  sh: 'shell',
  bash: 'shell',
  md: 'markdown',
  yml: 'yaml',
};

/** Normalises one `lang:` value to a detectLanguage id. */
export function normalizeLanguage(value: string): string {
  const v = value.trim().toLowerCase();
  return LANGUAGE_ALIASES[v] ?? v;
}

// `file:` is an alias of `path:` (the Sourcegraph spelling); keys are case-insensitive.
const RE_FILTER = /(-?)(lang|language|path|file):/iy;

function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isAsciiAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function isLetterLike(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0xc0;
}

/** Characters a token may contain: word characters plus the connectors of paths and qualified names. */
function isTokenChar(c: number): boolean {
  if (c < 128) {
    return (
      isAsciiAlnum(c) ||
      c === 95 || // _
      c === 36 || // $
      c === 46 || // .
      c === 47 || // /
      c === 92 || // \
      c === 45 || // -
      c === 58 || // :
      c === 64 || // @
      c === 35 || // #
      c === 126 // ~
    );
  }
  // Typographic quotes delimit; every other non-space character is part of a word.
  return !isSpace(c) && c !== 0x2018 && c !== 0x2019 && c !== 0x201c && c !== 0x201d;
}

/** Trailing characters that are punctuation, not part of the term. */
function isTrailingPunct(c: number): boolean {
  return c === 46 || c === 58 || c === 45 || c === 35 || c === 64 || c === 126 || c === 92;
}

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
class SingleQuoteCloser {
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

const RE_PLAIN_NUMBER = /^\d+(?:\.\d+)*$/;

function isCitationNumber(n: QueryNode | undefined): n is TermNode {
  return (
    n !== undefined && n.kind === 'term' && n.shape === 'number' && RE_PLAIN_NUMBER.test(n.value)
  );
}

function isCitationAcronym(n: QueryNode | undefined): n is TermNode {
  return n !== undefined && n.kind === 'term' && n.shape === 'acronym' && n.value.length <= 8;
}

/** Whether `b` follows `a` after exactly one space. */
function adjacent(input: string, a: TermNode, b: TermNode): boolean {
  return b.start === a.end + 1 && input.charCodeAt(a.end) === 32;
}

/**
 * Merges spaced citations into one code node: `30 CFR 75.1725`,
 * `RFC 7231`, `HTTP 404`, `42 U.S.C 1983` (an acronym followed by a
 * number, optionally preceded by a number, single spaces between).
 */
function mergeCitations(input: string, nodes: QueryNode[], from: number): void {
  if (nodes.length - from < 2) return;
  let w = from;
  for (let r = from; r < nodes.length; r++) {
    const a = nodes[r]!;
    const b = nodes[r + 1];
    const c = nodes[r + 2];
    let merged: TermNode[] | null = null;
    if (a.kind !== 'term' || (a.shape !== 'number' && a.shape !== 'acronym')) {
      nodes[w++] = a;
      continue;
    }
    if (
      isCitationNumber(a) &&
      isCitationAcronym(b) &&
      isCitationNumber(c) &&
      adjacent(input, a, b) &&
      adjacent(input, b, c)
    ) {
      merged = [a, b, c];
    } else if (isCitationAcronym(a) && isCitationNumber(b) && adjacent(input, a, b)) {
      merged = [a, b];
    }
    if (merged) {
      const first = merged[0]!;
      const last = merged[merged.length - 1]!;
      const text = input.slice(first.start, last.end);
      const node: TermNode = {
        kind: 'term',
        text,
        start: first.start,
        end: last.end,
        value: merged.map((n) => n.value).join(' '),
        shape: 'code',
        stop: false,
      };
      if (first.trace !== undefined) node.trace = first.trace;
      nodes[w++] = node;
      r += merged.length - 1;
    } else {
      nodes[w++] = a;
    }
  }
  nodes.length = w;
}

/** Parses a filter at `i` (a token start), or returns null when there is none. */
function readFilter(input: string, i: number, end: number): [FilterNode, number] | null {
  RE_FILTER.lastIndex = i;
  const m = RE_FILTER.exec(input);
  if (!m) return null;
  let k = i + m[0].length;
  if (k >= end) return null;
  let value: string;
  let stop: number;
  const q = input.charCodeAt(k);
  if (q === 34) {
    // A quoted value ends on its line and within QUOTE_LOOKAHEAD, which bounds the search.
    let close = -1;
    const limit = Math.min(end, k + 1 + QUOTE_LOOKAHEAD);
    for (let x = k + 1; x < limit; x++) {
      const d = input.charCodeAt(x);
      if (d === 34) {
        close = x;
        break;
      }
      if (d === 10) break;
    }
    if (close < 0) return null;
    value = input.slice(k + 1, close);
    stop = close + 1;
  } else {
    stop = k;
    while (stop < end && !isSpace(input.charCodeAt(stop))) stop++;
    value = input.slice(k, stop);
  }
  value = value.trim();
  if (value === '') return null;
  k = stop;
  const key = m[2]!.toLowerCase();
  const field = key === 'lang' || key === 'language' ? 'language' : 'path';
  const values =
    field === 'language'
      ? value
          .split(',')
          .map(normalizeLanguage)
          .filter((v) => v !== '')
      : [value.replaceAll('\\', '/')];
  const node: FilterNode = {
    kind: 'filter',
    text: input.slice(i, k),
    start: i,
    end: k,
    key,
    field,
    negated: m[1] === '-',
    value,
    values,
  };
  return [node, k];
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
      } else {
        break;
      }
    }
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
