/**
 * The code-aware analyzer: one function turns text into search terms, and
 * the same function runs at index time and at query time, so a query term
 * can only match if the document produced the identical term.
 *
 * Rules (every term is lowercased):
 * - Words are runs of identifier characters: letters, digits, combining
 *   marks, `_` and `$`. Everything else separates words.
 * - Words joined by short runs (at most 3) of connector characters
 *   `/ : . -` form a compound (`os.path.join`, `PII-2024-0042`,
 *   `src/scanner/walk.ts`, `std::vec`). A compound is emitted whole, then
 *   split on its strongest connector (`/` then `:` then `.` then `-`) and
 *   each piece is emitted the same way, so `src/scanner/walk.ts` yields
 *   `src/scanner/walk.ts src scanner walk.ts walk ts` (the stem `walk` and
 *   the extension both become terms). Connectors at the edges are not part
 *   of a compound, so a sentence's full stop or a `--flag` dash is dropped.
 * - Each word is emitted whole, then split into its parts at `_`/`$`,
 *   lower-to-upper case changes, the end of an acronym and letter/digit
 *   changes: `getHTTPResponse` -> `gethttpresponse get http response`,
 *   `max_file_bytes` -> `max_file_bytes max file bytes`, `utf8` -> `utf8 utf 8`.
 * - Within one compound a term is emitted once; across the text repeats are
 *   kept, because term frequency matters to BM25.
 * - Terms of one character are dropped unless they are a digit or a
 *   non-ASCII letter: single ASCII letters (`i`, `x`, `T`, the `D` of `D40`)
 *   occur everywhere in code and only bloat the index, while digits carry
 *   meaning in versions and ids (`utf8`, `v1.2.3`).
 * - A short list of English function words is dropped (see STOPWORDS). It
 *   holds only words that carry no meaning in prose or code; code keywords
 *   that name a concept (`class`, `return`, `async`, `not`) are kept.
 * - Terms longer than MAX_TERM_LENGTH are dropped rather than truncated (a
 *   truncated term could collide with another long term); their parts are
 *   still emitted.
 */

/** Bump when the analyzer's output changes: indexes built with another version must be rebuilt. */
export const ANALYZER_VERSION = 1;

/** Longest term emitted, in UTF-16 code units. */
export const MAX_TERM_LENGTH = 64;

/**
 * Most unique terms `analyzeQuery` keeps, bounding the work for a huge
 * pasted query; stores pick the most useful of these (rarest, present).
 */
export const MAX_QUERY_TERMS = 1024;

/**
 * Prose words that never help find code. Kept small on purpose: no code
 * keyword that names a concept is here. Lowercase.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  'an',
  'the',
  'of',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'to',
  'in',
  'on',
  'at',
  'by',
  'and',
  'or',
  'it',
  'its',
  'that',
  'these',
  'those',
  'how',
  'what',
  'which',
  'does',
  'did',
]);

// Character classes, by ASCII code, for the hot loop.
const C_OTHER = 0;
const C_UPPER = 1;
const C_LOWER = 2;
const C_DIGIT = 3;
const C_SEP = 4; // `_` and `$`: part of a word, but split points inside it
const C_MARK = 5; // combining mark: continues whatever precedes it
const C_CASELESS = 6; // letter without case (CJK, Arabic, ...)

const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) ASCII_CLASS[c] = C_UPPER;
  else if (c >= 97 && c <= 122) ASCII_CLASS[c] = C_LOWER;
  else if (c >= 48 && c <= 57) ASCII_CLASS[c] = C_DIGIT;
  else if (c === 95 || c === 36) ASCII_CLASS[c] = C_SEP;
}

/** Connector characters and their strength (higher splits first). */
function connectorRank(c: number): number {
  switch (c) {
    case 47: // '/'
      return 4;
    case 58: // ':'
      return 3;
    case 46: // '.'
      return 2;
    case 45: // '-'
      return 1;
    default:
      return 0;
  }
}

const MAX_CONNECTOR_RUN = 3;

const RE_UPPER = /\p{Lu}|\p{Lt}/u;
const RE_LOWER = /\p{Ll}/u;
const RE_LETTER = /\p{L}/u;
const RE_NUMBER = /\p{N}/u;
const RE_MARK = /\p{M}/u;

function classOfCodePoint(cp: number): number {
  if (cp < 128) return ASCII_CLASS[cp]!;
  const ch = String.fromCodePoint(cp);
  if (RE_LOWER.test(ch)) return C_LOWER;
  if (RE_UPPER.test(ch)) return C_UPPER;
  if (RE_LETTER.test(ch)) return C_CASELESS;
  if (RE_NUMBER.test(ch)) return C_DIGIT;
  if (RE_MARK.test(ch)) return C_MARK;
  return C_OTHER;
}

function isDigitClass(k: number): boolean {
  return k === C_DIGIT;
}

function keepTerm(term: string): boolean {
  const n = term.length;
  if (n === 0 || n > MAX_TERM_LENGTH) return false;
  if (n === 1) {
    const c = term.charCodeAt(0);
    // Digits stay; any other ASCII character alone is noise; a lone non-ASCII letter is a word.
    return (c >= 48 && c <= 57) || c >= 128;
  }
  // A lone surrogate pair (one astral character) is length 2 and kept like a non-ASCII letter.
  return !STOPWORDS.has(term);
}

/**
 * Splits one identifier into its lowercase parts (without the whole word):
 * `getHTTPResponse` -> [get, http, response]; `__init__` -> [init];
 * `D40` -> [d, 40]. Parts are returned before stop-word and length rules.
 */
export function splitIdentifier(word: string): string[] {
  const parts: string[] = [];
  let start = -1; // start index of the current part, -1 when none
  let prevClass = C_OTHER;
  let i = 0;
  const n = word.length;
  while (i < n) {
    const cp = word.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const k = classOfCodePoint(cp);
    if (k === C_SEP || k === C_OTHER) {
      if (start >= 0) parts.push(word.slice(start, i).toLowerCase());
      start = -1;
      prevClass = C_OTHER;
      i += width;
      continue;
    }
    if (k === C_MARK) {
      // A combining mark belongs to the character before it.
      if (start < 0) start = i;
      i += width;
      continue;
    }
    let boundary = false;
    if (start >= 0) {
      if (isDigitClass(k) !== isDigitClass(prevClass)) boundary = true;
      else if (k === C_UPPER && (prevClass === C_LOWER || prevClass === C_CASELESS))
        boundary = true;
      else if (k === C_UPPER && prevClass === C_UPPER) {
        // End of an acronym: the last capital of `HTTPResponse` starts `Response`.
        const next = i + width < n ? word.codePointAt(i + width)! : -1;
        if (next >= 0 && classOfCodePoint(next) === C_LOWER) boundary = true;
      }
    }
    if (boundary) {
      parts.push(word.slice(start, i).toLowerCase());
      start = i;
    } else if (start < 0) {
      start = i;
    }
    prevClass = k;
    i += width;
  }
  if (start >= 0) parts.push(word.slice(start, n).toLowerCase());
  return parts;
}

/** Emits `term` into `out` unless the rules drop it or this compound already emitted it. */
function emit(out: string[], seen: string[], term: string): void {
  if (!keepTerm(term)) return;
  if (seen.includes(term)) return;
  seen.push(term);
  out.push(term);
}

function emitWord(out: string[], seen: string[], word: string): void {
  const lower = word.toLowerCase();
  emit(out, seen, lower);
  const parts = splitIdentifier(word);
  if (parts.length === 1 && parts[0] === lower) return;
  for (const p of parts) emit(out, seen, p);
}

/** Emits a compound whole, then recurses on its split at the strongest connector. */
function emitCompound(out: string[], seen: string[], raw: string): void {
  // Splitting `http://x` on `/` leaves `http:`; edge connectors are never part of a term.
  let a = 0;
  let b = raw.length;
  while (a < b && connectorRank(raw.charCodeAt(a)) > 0) a++;
  while (b > a && connectorRank(raw.charCodeAt(b - 1)) > 0) b--;
  if (a === b) return;
  const piece = a === 0 && b === raw.length ? raw : raw.slice(a, b);
  let top = 0;
  for (let i = 0; i < piece.length; i++) {
    const r = connectorRank(piece.charCodeAt(i));
    if (r > top) top = r;
  }
  if (top === 0) {
    emitWord(out, seen, piece);
    return;
  }
  emit(out, seen, piece.toLowerCase());
  const sep = top === 4 ? '/' : top === 3 ? ':' : top === 2 ? '.' : '-';
  for (const sub of piece.split(sep)) {
    if (sub.length > 0) emitCompound(out, seen, sub);
  }
}

function isWordClass(k: number): boolean {
  return k !== C_OTHER;
}

/**
 * Analyzes text into lowercase terms, in text order, repeats kept (see the
 * module comment for the rules). Used for documents and, via
 * `analyzeQuery`, for queries.
 */
export function analyze(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    // Skip to the start of a word.
    let c = text.charCodeAt(i);
    if (c < 128) {
      if (ASCII_CLASS[c] === C_OTHER) {
        i++;
        continue;
      }
    } else {
      const cp = text.codePointAt(i)!;
      if (!isWordClass(classOfCodePoint(cp))) {
        i += cp > 0xffff ? 2 : 1;
        continue;
      }
    }
    const start = i;
    let hasConnector = false;
    let hasNonAscii = false;
    // Extend through word characters and short connector runs followed by a word character.
    for (;;) {
      while (i < n) {
        c = text.charCodeAt(i);
        if (c < 128) {
          if (ASCII_CLASS[c] === C_OTHER) break;
          i++;
        } else {
          const cp = text.codePointAt(i)!;
          if (!isWordClass(classOfCodePoint(cp))) break;
          hasNonAscii = true;
          i += cp > 0xffff ? 2 : 1;
        }
      }
      let j = i;
      while (j < n && j - i < MAX_CONNECTOR_RUN && connectorRank(text.charCodeAt(j)) > 0) j++;
      if (j === i || j >= n) break;
      const next = text.charCodeAt(j);
      const nextIsWord =
        next < 128
          ? ASCII_CLASS[next] !== C_OTHER
          : isWordClass(classOfCodePoint(text.codePointAt(j)!));
      if (!nextIsWord) break;
      hasConnector = true;
      i = j;
    }
    const piece = text.slice(start, i);
    const seen: string[] = [];
    if (hasConnector) emitCompound(out, seen, piece);
    else if (!hasNonAscii && isPlainLowerWord(piece)) emit(out, seen, piece);
    else emitWord(out, seen, piece);
  }
  return out;
}

/** Fast path: an all-lowercase ASCII word without digits or separators has no parts. */
function isPlainLowerWord(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

/**
 * Analyzes a query: the same terms as `analyze`, deduplicated (first
 * occurrence wins, order kept) and capped at MAX_QUERY_TERMS so a pasted
 * snippet of any size still makes a bounded query.
 */
export function analyzeQuery(text: string, maxTerms = MAX_QUERY_TERMS): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of analyze(text)) {
    if (seen.has(t)) continue;
    seen.add(t);
    out.push(t);
    if (out.length >= maxTerms) break;
  }
  return out;
}
