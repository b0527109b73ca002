/**
 * Which of a file's definitions a question is about, by name. BM25 scores a
 * chunk by how often it repeats the query's words, so in a long file the
 * chunks that use a common word most (a long function calling everything,
 * an inline test module) come first, and the chunk list, which keeps a few
 * units per file (units.ts), shows those instead of the definition the
 * question names in its own words (`skip_empty_lines` for "where are empty
 * lines before the request line tolerated?"). A definition's name is what
 * its author says it does: the query words the name holds, weighed by how
 * few candidates' names hold them and by how much of the name they make
 * up, rank it within its file.
 *
 * Only the order within a file changes: each file keeps the positions its
 * chunks had in the ranking, so which file comes where (what the file list
 * and the chunk list's file accuracy measure) stays as the scores said;
 * this decides which of the file's chunks fills each of its positions.
 *
 * Pure: the candidates' symbol paths come in (the keyword side's hits carry them).
 */
import { type WordMatcher, wordMatcher } from './file-coverage.js';

/** Symbol path separators: `a.b`, `a::b`, `A#b`, a Markdown heading path `A > B`. */
const SEGMENTS = /\s*>\s*|::|\.|#/u;

/** A definition's own name: the last segment of its symbol path (`Request.parse` → `parse`). */
export function ownName(symbol: string): string {
  const parts = symbol.split(SEGMENTS);
  return parts[parts.length - 1]!;
}

/**
 * A definition inside a test (a `tests` module, `test_x`, `TestX`,
 * `testX`): its name restates, in the query's words, the behaviour it
 * checks, which is implemented elsewhere.
 */
export function isTestSymbol(symbol: string): boolean {
  return symbol
    .split(SEGMENTS)
    .some((p) => /^[Tt]ests?$/u.test(p) || /^(?:test_|Test[\p{Lu}_]|test\p{Lu})/u.test(p));
}

/** A name's words (`skip_empty_lines`, `cJSON_Minify`, `parseHTTPVersion`), of three letters or more. */
function nameWords(name: string): string[] {
  return (name.match(/\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+/gu) ?? []).filter(
    (w) => w.length >= 3,
  );
}

/** A candidate's definition as the keyword side reports it: its symbol path and its kind. */
export interface NamedDefinition {
  symbol: string | null;
  kind: string;
}

/**
 * Kinds whose name says what the code does. A class, a type or a Markdown
 * section is named by a noun the question uses for everything inside it
 * ("Zero-argument Min() and Max()" is answered in their base class's
 * constructor, not in the `Min` chunk).
 */
const CALLABLE_KINDS = new Set(['function', 'method']);

/**
 * Each candidate's name share, in 0..1: the query words its own name
 * holds, each weighted by ln((named + 1) / (holders + 1)) over the
 * candidates that have a symbol, over the weights of the words some name
 * holds; times the share of the name's words a query word matches, so that
 * `allow_spaces_in_request_line` does not match "request line" as well as
 * `parse_request_line` does. Only functions and methods get one
 * (CALLABLE_KINDS), and not those inside a test (isTestSymbol).
 */
export function nameShares(
  items: readonly { id: string }[],
  definitionOf: (id: string) => NamedDefinition | undefined,
  words: readonly string[],
): Map<string, number> {
  const matchers: WordMatcher[] = [...new Set(words.map((w) => w.toLowerCase()))].map(wordMatcher);
  const held = new Map<string, { words: number[]; precision: number }>();
  const holders = matchers.map(() => 0);
  let named = 0;
  for (const item of items) {
    const def = definitionOf(item.id);
    const symbol = def?.symbol;
    if (!symbol) continue;
    named++;
    if (!CALLABLE_KINDS.has(def.kind) || isTestSymbol(symbol)) continue;
    const name = ownName(symbol);
    const lower = name.toLowerCase();
    const h = matchers.flatMap((m, i) => (m.test(name, lower) ? [i] : []));
    if (h.length === 0) continue;
    for (const i of h) holders[i]!++;
    const own = nameWords(name);
    const matched = own.filter((w) => matchers.some((m) => m.test(w))).length;
    held.set(item.id, { words: h, precision: own.length === 0 ? 1 : matched / own.length });
  }
  // A word no name holds says nothing about which name is meant.
  const weights = holders.map((n) => (n === 0 ? 0 : Math.log((named + 1) / (n + 1))));
  const total = weights.reduce((a, b) => a + b, 0);
  const out = new Map<string, number>();
  if (total <= 0) return out;
  for (const [id, h] of held) {
    out.set(id, (h.words.reduce((s, i) => s + weights[i]!, 0) / total) * h.precision);
  }
  return out;
}

/**
 * The ranking with each file's items reordered by `key` (best first, ties
 * in the input order) into the positions that file's items held.
 */
export function orderWithinFiles<T extends { path: string }>(
  ranked: readonly T[],
  key: (item: T) => number,
): T[] {
  const byFile = new Map<string, number[]>();
  ranked.forEach((item, i) => {
    const at = byFile.get(item.path);
    if (at === undefined) byFile.set(item.path, [i]);
    else at.push(i);
  });
  const out = [...ranked];
  for (const at of byFile.values()) {
    if (at.length < 2) continue;
    const keyed = at.map((i) => ({ item: ranked[i]!, k: key(ranked[i]!), i }));
    keyed.sort((a, b) => b.k - a.k || a.i - b.i);
    keyed.forEach((x, j) => {
      out[at[j]!] = x.item;
    });
  }
  return out;
}

/**
 * The ranking with each file's chunks ordered by score plus `weight` x
 * their name share (nameShares), in the file's positions.
 */
export function orderByNames<T extends { id: string; path: string; score: number }>(
  ranked: readonly T[],
  definitionOf: (id: string) => NamedDefinition | undefined,
  names: { words: readonly string[]; weight: number },
): T[] {
  const shares = nameShares(ranked, definitionOf, names.words);
  if (shares.size === 0) return [...ranked];
  return orderWithinFiles(ranked, (r) => r.score + names.weight * (shares.get(r.id) ?? 0));
}
