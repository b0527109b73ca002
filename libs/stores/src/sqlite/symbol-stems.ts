/**
 * An in-memory inverted index from word stems to symbols, for
 * `SymbolStore.related`: the vocabulary slice an LLM rewrite (or the offline
 * bridge) needs on every natural-language query. Scanning the symbols table
 * with `LIKE '%stem%'` on names and doc comments cost tens of milliseconds
 * per query on a 20k-symbol index, more than the rest of the rewrite step;
 * postings make it a few map lookups. Built on first use from one pass over
 * the table and dropped when the data changes (our own writes call
 * invalidate(), other connections' commits change `PRAGMA data_version`), so
 * no schema change is needed and old indexes gain it as they are.
 */
import { wordStems } from '@codesift/analysis';
import type { SqliteContext } from './sql.js';

/** Where a stem occurs in one symbol: its name parts (2) or only its doc words (1). */
const NAME = 2;
const DOC = 1;

interface StemTable {
  /** stem → symbols (row order) and where the stem occurs in each. */
  postings: Map<string, { rows: number[]; weights: number[] }>;
  /** rowid and name per symbol, in rowid order (the order a table scan reads them). */
  rowids: number[];
  names: string[];
}

/** A symbol matching some stems: its rowid, name and score (sum over the stems of NAME or DOC). */
export interface StemMatch {
  rowid: number;
  name: string;
  score: number;
}

export class SymbolStems {
  private table: StemTable | null = null;
  private dataVersion = -1;
  private scores = new Float64Array(0);

  constructor(private readonly ctx: SqliteContext) {}

  /** Forget the table: the symbols were written through this connection. */
  invalidate(): void {
    this.table = null;
  }

  /**
   * The `limit` best names for `stems`, best first: score (the sum over the
   * stems of NAME or DOC) descending, then shorter names, then names in
   * locale order; per name its best symbol, the first in row order among
   * equals, as a table scan would keep. Only the names that can make the
   * cut are sorted: a common stem matches thousands of symbols, and sorting
   * them all was most of the slice's cost.
   */
  top(stems: readonly string[], limit: number): StemMatch[] {
    const table = this.current();
    const scores = this.scratch(table.names.length);
    const touched: number[] = [];
    for (const stem of new Set(stems)) {
      const p = table.postings.get(stem);
      if (!p) continue;
      for (let i = 0; i < p.rows.length; i++) {
        const row = p.rows[i]!;
        if (scores[row] === 0) touched.push(row);
        scores[row] = scores[row]! + p.weights[i]!;
      }
    }
    const best = new Map<string, { row: number; score: number }>();
    for (const row of touched) {
      const name = table.names[row]!;
      const score = scores[row]!;
      scores[row] = 0;
      const prev = best.get(name);
      if (!prev || prev.score < score || (prev.score === score && row < prev.row)) {
        best.set(name, { row, score });
      }
    }
    const byScore = new Map<number, string[]>();
    for (const [name, b] of best) {
      const bucket = byScore.get(b.score);
      if (bucket) bucket.push(name);
      else byScore.set(b.score, [name]);
    }
    const out: StemMatch[] = [];
    for (const score of [...byScore.keys()].sort((a, b) => b - a)) {
      if (out.length >= limit) break;
      for (const name of shortestFirst(byScore.get(score)!, limit - out.length)) {
        out.push({ rowid: table.rowids[best.get(name)!.row]!, name, score });
      }
    }
    return out;
  }

  /** A zeroed score per symbol, reused across calls (top() zeroes what it touched). */
  private scratch(n: number): Float64Array {
    if (this.scores.length < n) this.scores = new Float64Array(n);
    return this.scores;
  }

  private current(): StemTable {
    const v = (this.ctx.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (v !== this.dataVersion) {
      this.dataVersion = v;
      this.table = null;
    }
    this.table ??= this.build();
    return this.table;
  }

  private build(): StemTable {
    const table: StemTable = { postings: new Map(), rowids: [], names: [] };
    const rows = this.ctx
      .stmt('SELECT rowid, name, doc FROM symbols ORDER BY rowid')
      .iterate() as IterableIterator<{ rowid: number; name: string; doc: string }>;
    for (const r of rows) {
      const row = table.rowids.length;
      table.rowids.push(r.rowid);
      table.names.push(r.name);
      const inName = new Set(wordStems(r.name));
      for (const stem of inName) post(table, stem, row, NAME);
      for (const stem of wordStems(r.doc)) if (!inName.has(stem)) post(table, stem, row, DOC);
    }
    return table;
  }
}

function post(table: StemTable, stem: string, row: number, weight: number): void {
  let p = table.postings.get(stem);
  if (!p) {
    p = { rows: [], weights: [] };
    table.postings.set(stem, p);
  }
  p.rows.push(row);
  p.weights.push(weight);
}

const collator = new Intl.Collator();

/**
 * The `take` first of `names` by length, then locale order (as
 * String.localeCompare orders them), sorting only the names at or under the
 * boundary length.
 */
function shortestFirst(names: string[], take: number): string[] {
  const byLength = (a: string, b: string) => a.length - b.length || collator.compare(a, b);
  if (names.length <= take) return names.sort(byLength);
  const lengths = names.map((n) => n.length).sort((a, b) => a - b);
  const boundary = lengths[take - 1]!;
  return names
    .filter((n) => n.length <= boundary)
    .sort(byLength)
    .slice(0, take);
}
