/** Character classes of the query tokenizer, by UTF-16 code unit. */

export function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

export function isAsciiAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

export function isLetterLike(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0xc0;
}

/** A character that can start an identifier: a letter, `_` or `$`. */
export function isIdentStart(c: number): boolean {
  return isLetterLike(c) || c === 95 || c === 36;
}

/** Characters a token may contain: word characters plus the connectors of paths and qualified names. */
export function isTokenChar(c: number): boolean {
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
export function isTrailingPunct(c: number): boolean {
  return c === 46 || c === 58 || c === 45 || c === 35 || c === 64 || c === 126 || c === 92;
}
