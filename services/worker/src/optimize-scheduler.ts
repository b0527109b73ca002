// When the writer optimizes its index: after a burst of writes goes quiet,
// so the read side catches up (SQLite: merge FTS segments, save the HNSW
// graph; without it every vector search in the query service falls back
// to an exact scan). A slow embedder leaves gaps between batches longer
// than the idle time; saving a large graph in every gap would cost more
// than it gives, so optimizations are also spaced apart.
import { errorMessage } from '@codesift/core';
import type { Logger } from '@codesift/service-kit';

/** Least time between two optimizations of the index while writes keep coming. */
export const OPTIMIZE_SPACING_MS = 30_000;

export interface OptimizeSchedulerOptions {
  /** Quiet time after the last write before optimizing. */
  idleMs: number;
  /** Least time between two optimizations; default OPTIMIZE_SPACING_MS. */
  spacingMs?: number;
  log: Logger;
  /** The clock, in ms; default performance.now (tests pass one they move). */
  now?: () => number;
}

export interface OptimizeScheduler {
  /** The index was written: optimize once writes have been quiet for a while. */
  wrote(): void;
  /** Drops the pending timer and optimizes now if anything was written since the last time. */
  flush(): Promise<void>;
}

export function createOptimizeScheduler(
  optimizeIndex: () => Promise<void>,
  opts: OptimizeSchedulerOptions,
): OptimizeScheduler {
  const spacingMs = opts.spacingMs ?? OPTIMIZE_SPACING_MS;
  const now = opts.now ?? (() => performance.now());
  let dirty = false;
  let timer: NodeJS.Timeout | undefined;
  let lastOptimized = Number.NEGATIVE_INFINITY;
  const optimize = async () => {
    timer = undefined;
    if (!dirty) return;
    dirty = false;
    lastOptimized = now();
    const t0 = lastOptimized;
    try {
      await optimizeIndex();
      opts.log.info('index optimized', { ms: Math.round(now() - t0) });
    } catch (err) {
      // The next write (or the flush at close) tries again.
      dirty = true;
      opts.log.warn('index optimize failed; searches may be slower until the next one', {
        error: errorMessage(err),
      });
    }
  };
  return {
    wrote() {
      dirty = true;
      clearTimeout(timer);
      const spacing = lastOptimized + spacingMs - now();
      timer = setTimeout(() => void optimize(), Math.max(opts.idleMs, spacing));
      timer.unref();
    },
    async flush() {
      clearTimeout(timer);
      await optimize();
    },
  };
}
