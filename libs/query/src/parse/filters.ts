/** Filters typed in a query: `lang:`, `path:` (alias `file:`), negated with `-`. */
import { resolveLanguage } from '@codesift/analysis';
import type { FilterNode } from '../types.js';
import { isSpace } from './chars.js';
import { QUOTE_LOOKAHEAD } from './quotes.js';

/**
 * One `lang:` value as a detectLanguage id: the id an alias names (the table
 * is @codesift/analysis resolveLanguage's), else the value as typed, which
 * the engine refuses with the list of known languages.
 */
export function normalizeLanguage(value: string): string {
  return resolveLanguage(value) ?? value.trim().toLowerCase();
}

// `file:` is an alias of `path:` (the Sourcegraph spelling); keys are case-insensitive.
const RE_FILTER = /(-?)(lang|language|path|file):/iy;

/** Parses a filter at `i` (a token start), or returns null when there is none. */
export function readFilter(input: string, i: number, end: number): [FilterNode, number] | null {
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
