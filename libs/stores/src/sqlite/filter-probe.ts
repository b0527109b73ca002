/**
 * Which filters the keyword side tries as a probe first (keyword-store.ts).
 * A filter that keeps most rows (`lang:python` in a Python repository,
 * `path:src/**` when nearly all code lies under src/, an exclude of the
 * docs) leaves the best unfiltered results mostly in place: testing the
 * filter on those few is exact when enough pass, and far cheaper than
 * joining every scored row with its chunk to test it. A selective filter's
 * probe comes back short and the full search runs after it, so the probe's
 * cost is wasted: the filters whose probe came back short are remembered (a
 * few dozen, most recent first) and not probed for the next searches with
 * them, so a repeated selective filter pays for it once in a while.
 */
import type { SearchFilter } from '../ports.js';
import { filterKey } from './store-filter.js';

/** Short probes remembered per store. */
const REMEMBERED = 64;

/**
 * Searches that skip the probe after it came back short. A narrow filter
 * then wastes one probe in this many searches; a broad one whose best rows
 * fell outside the probe by chance is probed again soon.
 */
const SKIP_AFTER_SHORT = 16;

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
