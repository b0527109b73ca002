/**
 * The query's own filters (`lang:go path:src/** -path:vendor`) merged into
 * the request's. Each list of a SearchFilter is an "any of" list, so lists
 * are unions: `--lang python` plus `lang:go` in the text searches both,
 * rather than silently nothing. Excludes always add up.
 */
import type { QueryFilters } from '@codesift/query';
import type { SearchFilter } from '../types.js';

export function mergeFilters(request: SearchFilter | undefined, query: QueryFilters): SearchFilter {
  const out: SearchFilter = {};
  const union = (a: readonly string[] | undefined, b: readonly string[]): string[] => [
    ...new Set([...(a ?? []), ...b]),
  ];
  const languages = union(request?.languages, query.languages);
  const excludeLanguages = union(request?.excludeLanguages, query.excludeLanguages);
  const include = union(request?.include, query.include);
  const exclude = union(request?.exclude, query.exclude);
  if (languages.length > 0) out.languages = languages;
  if (excludeLanguages.length > 0) out.excludeLanguages = excludeLanguages;
  if (include.length > 0) out.include = include;
  if (exclude.length > 0) out.exclude = exclude;
  return out;
}

/** True when the query text carried any filter. */
export function hasQueryFilters(query: QueryFilters): boolean {
  return (
    query.languages.length +
      query.excludeLanguages.length +
      query.include.length +
      query.exclude.length >
    0
  );
}
