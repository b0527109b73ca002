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

  constructor(private readonly ctx: SqliteContext) {}

  /** Forget the table: the symbols were written through this connection. */
  invalidate(): void {
    this.table = null;
  }

  /**
   * The best-scoring symbol per name among those whose name parts or doc
   * words contain one of `stems`: the first in row order among a name's
   * equal best, as a scan would keep.
   */
  bestPerName(stems: readonly string[]): StemMatch[] {
    const table = this.current();
    const scores = new Map<number, number>();
    for (const stem of new Set(stems)) {
      const p = table.postings.get(stem);
      if (!p) continue;
      for (let i = 0; i < p.rows.length; i++) {
        const row = p.rows[i]!;
        scores.set(row, (scores.get(row) ?? 0) + p.weights[i]!);
      }
    }
    const best = new Map<string, StemMatch>();
    for (const row of [...scores.keys()].sort((a, b) => a - b)) {
      const name = table.names[row]!;
      const score = scores.get(row)!;
      const prev = best.get(name);
      if (!prev || prev.score < score) best.set(name, { rowid: table.rowids[row]!, name, score });
    }
    return [...best.values()];
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
