/**
 * Fills the quantized copy (quantized-rows.ts) for a filter's rows while the
 * process is idle, a slice at a time, so that a server moves a filter onto
 * the copy between queries instead of only within them. At 1M rows a
 * language of 7 % touches every vec0 chunk: seconds of reading, which a
 * search's own share (VectorStore's WARM_SHARE) would spread over dozens of
 * searches.
 *
 * Idle means no search for IDLE_MS: a process answering searches back to
 * back never runs a slice (a slice could still land while a query waits for
 * its embedding, and delay it by one slice). One job at a time, the latest
 * filter's (an older one is taken up again when its filter is next searched). Each slice runs in its own read
 * transaction and gives up when the database has moved to another
 * generation since the job's rows were listed: their vec0 locations may no
 * longer hold them. Timers are unref'd, so a one-shot `codesift search`
 * exits without waiting for them.
 */
import type { CatalogRows, QuantizedRows, RowReader } from './quantized-rows.js';
import { readVectorGeneration, type VectorGeneration } from './schema.js';
import type { SqliteContext } from './sql.js';

/** How long one slice may read (at least one vec0 chunk's rows): the most a query arriving meanwhile waits. */
export const SLICE_MS = 5;
/** A pause in searches this long counts as idle. */
export const IDLE_MS = 100;
/**
 * Rows read at once in a slice: point reads (below vec0-reader's
 * CHUNK_READ_ROWS), so a slice never waits on a whole 2 MB chunk and stays
 * near SLICE_MS even when a query's embedding is waiting behind it.
 */
const SLICE_BATCH = 32;

export interface FillJob {
  copy: QuantizedRows;
  rows: CatalogRows;
  read: RowReader;
  /** The generation the rows were listed at. */
  gen: VectorGeneration;
}

export class IdleFiller {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private job: FillJob | null = null;

  constructor(
    private readonly ctx: SqliteContext,
    /** When the last search ended (performance.now()). */
    private readonly lastSearchAt: () => number,
  ) {}

  /** Fill `job` in idle time, replacing any job not finished yet. */
  schedule(job: FillJob): void {
    this.job = job;
    this.wake();
  }

  private wake(): void {
    if (this.timer !== null) return;
    const quiet = performance.now() - this.lastSearchAt();
    this.timer = setTimeout(() => this.slice(), Math.max(0, IDLE_MS - quiet));
    this.timer.unref();
  }

  /** Drop the job (the index is closing). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.job = null;
  }

  private slice(): void {
    this.timer = null;
    const job = this.job;
    if (job === null) return;
    if (performance.now() - this.lastSearchAt() < IDLE_MS) {
      this.wake();
      return;
    }
    let done: boolean;
    try {
      done = this.ctx.db.transaction(() => {
        const now = readVectorGeneration(this.ctx);
        if (now.uid !== job.gen.uid || now.generation !== job.gen.generation) return true;
        job.copy.fill(job.rows, job.read, SLICE_MS, SLICE_BATCH);
        return job.copy.full || job.copy.missing(job.rows) === 0;
      })();
    } catch {
      // Work done off any caller's stack must not take the process down (a
      // database closed under it, a read error): stop; the next search of
      // the filter schedules it again.
      done = true;
    }
    if (done) {
      if (this.job === job) this.job = null;
    } else {
      this.wake();
    }
  }
}
