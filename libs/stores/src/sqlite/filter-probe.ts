/**
 * Which filters a search tries as a probe first. A filter that keeps most
 * rows (`lang:python` in a Python repository, `path:src/**` when nearly all
 * code lies under src/, an exclude of the docs) leaves the best unfiltered
 * results mostly in place: testing the filter on those few is exact when
 * enough pass, and far cheaper than testing it on every candidate (the
 * keyword side joins each scored row with its chunk; the vector side reads
 * which rows a filter keeps from a catalog of every row, built per index
 * generation: 40 ms at 29k chunks, 140 ms at 100k, in a one-shot CLI
 * search every time). A selective filter's probe comes back short and the
 * full search runs after it, so the probe's cost is wasted: the filters
 * whose probe came back short are remembered (a few dozen, most recent
 * first) and not probed for the next searches with them, so a repeated
 * selective filter pays for it once in a while.
 */
import type { SearchFilter } from '../ports.js';

/** Short probes remembered per store. */
const REMEMBERED = 64;

/**
 * Searches that skip the probe after it came back short. A narrow filter
 * then wastes one probe in this many searches; a broad one whose best rows
 * fell outside the probe by chance is probed again soon.
 */
const SKIP_AFTER_SHORT = 16;

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

export class FilterProbes {
  /** Searches still to skip the probe, per filter whose probe came back short. */
  private readonly skips = new Map<string, number>();

  /** Probe `filter` first, unless its probe came back short within the last SKIP_AFTER_SHORT searches. */
  worthProbing(filter: SearchFilter): boolean {
    const key = filterKey(filter);
    const left = this.skips.get(key);
    if (left === undefined) return true;
    if (left <= 1) this.skips.delete(key);
    else this.skips.set(key, left - 1);
    return false;
  }

  /** The probe of `filter` kept too few: the next SKIP_AFTER_SHORT searches with it go straight to the full search. */
  cameBackShort(filter: SearchFilter): void {
    const key = filterKey(filter);
    this.skips.delete(key);
    this.skips.set(key, SKIP_AFTER_SHORT);
    if (this.skips.size > REMEMBERED) this.skips.delete(this.skips.keys().next().value!);
  }
}
