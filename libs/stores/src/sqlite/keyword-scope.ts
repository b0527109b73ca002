/**
 * A path-prefix filter applied before scoring. The keyword search joins its
 * scored rows with `chunks` to test a filter, so with `path:mod3/**` a
 * query whose terms match 20,000 rows scores all of them (bm25() is most of
 * a search's cost) to keep the thousand under mod3/. The rows a prefix
 * keeps are one range of the `chunks_path` index: reading that range first
 * lets the search score only those rows. The filter is still applied to
 * the result as before, so the answer cannot change.
 */
import type { SearchFilter } from '../ports.js';

/**
 * The scope is read when it holds at most this share of the query's
 * postings; a broader one costs about what it saves (the check reads at
 * most that many index entries).
 */
export const SCOPE_MAX_SHARE = 0.25;

/**
 * [lo, hi) holding exactly the strings that start with `prefix` in SQLite's
 * BINARY order (UTF-8 bytes): hi is the prefix with its last character one
 * higher. Only for a prefix ending in an ASCII character below DEL, where
 * that is still one valid character; null otherwise (and for '').
 */
export function prefixRange(prefix: string): [string, string] | null {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (!(last >= 0 && last < 0x7f)) return null;
  return [prefix, prefix.slice(0, -1) + String.fromCharCode(last + 1)];
}

/** The WHERE condition on a table's `column` (and its parameters) for a filter's include prefixes; null when it has none usable. */
export function scopeCondition(
  filter: SearchFilter | undefined,
  column = 'path',
): {
  where: string;
  params: string[];
} | null {
  const prefixes = filter?.pathPrefixes ?? [];
  if (prefixes.length === 0) return null;
  const params: string[] = [];
  for (const p of prefixes) {
    const range = prefixRange(p);
    if (range === null) return null;
    params.push(...range);
  }
  return { where: prefixes.map(() => `(${column} >= ? AND ${column} < ?)`).join(' OR '), params };
}
