// What the server refuses in a Search request before it is mapped for the
// engine (see @codesift/wire): answered INVALID_ARGUMENT, never cut silently.
import { MAX_LIMIT } from '@codesift/core';
import type { SearchRequest as ProtoSearchRequest } from '@codesift/proto';
import { invalidArgument } from './errors.js';

/** Pasted stack traces and bug reports run to several KB; beyond this a query is a mistake. */
export const MAX_QUERY_CHARS = 64 * 1024;
const MAX_FILTER_ENTRIES = 64;

export function checkSearchRequest(req: ProtoSearchRequest): void {
  if (req.query.trim().length === 0) throw invalidArgument('query must not be empty');
  if (req.query.length > MAX_QUERY_CHARS) {
    throw invalidArgument(
      `query is ${req.query.length} characters; at most ${MAX_QUERY_CHARS} are accepted`,
    );
  }
  if (req.limit > MAX_LIMIT) {
    throw invalidArgument(`limit must be at most ${MAX_LIMIT}, got ${req.limit}`);
  }
  const f = req.filter;
  if (!f) return;
  for (const [name, list] of [
    ['languages', f.languages],
    ['include_paths', f.includePaths],
    ['exclude_paths', f.excludePaths],
  ] as const) {
    if (list.length > MAX_FILTER_ENTRIES) {
      throw invalidArgument(
        `filter.${name} has ${list.length} entries; at most ${MAX_FILTER_ENTRIES}`,
      );
    }
    if (list.some((s) => s.trim().length === 0)) {
      throw invalidArgument(`filter.${name} must not contain empty strings`);
    }
  }
}
