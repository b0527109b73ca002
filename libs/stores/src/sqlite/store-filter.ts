/**
 * A store filter's semantics in JavaScript, beside filterSql's in SQL
 * (sql.ts): languages, include path prefixes, excluded path prefixes. The
 * row catalog, the directory rows read without it and the filter probes
 * test and key filters through these, so they cannot disagree.
 */
import type { SearchFilter } from '../ports.js';

/** A stable key for a filter: the same sets in any order give the same key. */
export function filterKey(filter: SearchFilter): string {
  return JSON.stringify([
    [...(filter.languages ?? [])].sort(),
    [...(filter.pathPrefixes ?? [])].sort(),
    [...(filter.excludePathPrefixes ?? [])].sort(),
  ]);
}

/** Whether `filter` restricts anything. */
export function hasFilter(filter: SearchFilter | undefined): filter is SearchFilter {
  return (
    (filter?.languages?.length ?? 0) > 0 ||
    (filter?.pathPrefixes?.length ?? 0) > 0 ||
    (filter?.excludePathPrefixes?.length ?? 0) > 0
  );
}

/** Store filter semantics for a path: under an include prefix (when any), under no exclude prefix. */
export function pathPasses(filter: SearchFilter, path: string): boolean {
  const include = filter.pathPrefixes ?? [];
  const exclude = filter.excludePathPrefixes ?? [];
  return (
    (include.length === 0 || include.some((p) => path.startsWith(p))) &&
    !exclude.some((p) => path.startsWith(p))
  );
}

/** Store filter semantics for one row (filterSql tests the same in SQL). */
export function rowPasses(filter: SearchFilter, path: string, language: string): boolean {
  const langs = filter.languages ?? [];
  return (langs.length === 0 || langs.includes(language)) && pathPasses(filter, path);
}
