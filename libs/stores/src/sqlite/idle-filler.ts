/**
 * Fills the quantized copy (quantized-rows.ts) for a filter's rows while the
 * process is idle, a slice at a time, so that a server moves a filter onto
 * the copy between queries instead of only within them. At 1M rows a
 * language of 7 % touches every vec0 chunk: seconds of reading, which a
 * search's own share (VectorStore's WARM_SHARE) would spread over dozens of
 * searches.
 *
 * One job at a time, the latest filter's (an older one is taken up again
 * when its filter is next searched). Each slice runs in its own read
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

  constructor(private readonly ctx: SqliteContext) {}

  /** Fill `job` in idle time, replacing any job not finished yet. */
  schedule(job: FillJob): void {
    this.job = job;
    if (this.timer === null) {
      this.timer = setTimeout(() => this.slice(), 0);
      this.timer.unref();
    }
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
    let done: boolean;
    try {
      done = this.ctx.db.transaction(() => {
        const now = readVectorGeneration(this.ctx);
        if (now.uid !== job.gen.uid || now.generation !== job.gen.generation) return true;
        job.copy.fill(job.rows, job.read, SLICE_MS);
        return job.copy.full || job.copy.missing(job.rows) === 0;
      })();
    } catch {
      // Work done off any caller's stack must not take the process down (a
      // database closed under it, a read error): stop; the next search of
      // the filter schedules it again.
      done = true;
    }
    if (!done) this.schedule(job);
    else if (this.job === job) this.job = null;
  }
}
