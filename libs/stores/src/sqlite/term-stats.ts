/**
 * Document frequencies of keyword terms and the chunk count, for the query
 * plan. An fts5vocab lookup costs ~20–35 µs per term (a seek in every FTS
 * segment), which a 1,000-term pasted query would pay on every search; the
 * answers are cached per connection until the data changes: our own writes
 * call invalidate(), other connections' commits change `PRAGMA data_version`.
 */
import { chunked, countRows, IN_BATCH, type SqliteContext, sqlList } from './sql.js';

/** Cached terms before the cache starts over; ~100 bytes each. */
const MAX_CACHED_TERMS = 200_000;

export class TermStats {
  private readonly df = new Map<string, number>();
  private chunkCount: number | null = null;
  private dataVersion = -1;
  private vocabReady = false;

  constructor(private readonly ctx: SqliteContext) {}

  /** Forget everything: the index was written through this connection. */
  invalidate(): void {
    this.df.clear();
    this.chunkCount = null;
  }

  /** Chunks in the index. */
  total(): number {
    this.checkVersion();
    this.chunkCount ??= countRows(this.ctx, 'chunks');
    return this.chunkCount;
  }

  /** Document frequency of each term (0 for terms no chunk contains). */
  lookup(terms: readonly string[]): Map<string, number> {
    this.checkVersion();
    const out = new Map<string, number>();
    const missing: string[] = [];
    for (const t of terms) {
      const d = this.df.get(t);
      if (d === undefined) missing.push(t);
      else out.set(t, d);
    }
    if (missing.length === 0) return out;
    if (!this.vocabReady) {
      // A temp table: creating it writes nothing to the index, so read-only connections may too.
      this.ctx.db.exec(
        'CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)',
      );
      this.vocabReady = true;
    }
    if (this.df.size + missing.length > MAX_CACHED_TERMS) this.df.clear();
    for (const batch of chunked(missing, IN_BATCH)) {
      const rows = this.ctx
        .stmt(`SELECT term, doc FROM temp.chunks_vocab WHERE term IN (${sqlList(batch.length)})`)
        .all(...batch) as { term: string; doc: number }[];
      for (const t of batch) this.df.set(t, 0);
      for (const r of rows) this.df.set(r.term, r.doc);
      for (const t of batch) out.set(t, this.df.get(t)!);
    }
    return out;
  }

  private checkVersion(): void {
    const v = (this.ctx.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (v !== this.dataVersion) {
      this.dataVersion = v;
      this.invalidate();
    }
  }
}
