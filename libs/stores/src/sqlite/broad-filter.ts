/**
 * A filter that keeps most rows, answered from the graph's own candidates
 * as an unfiltered search is (vector-store.ts, filteredAnn): which of the
 * graph's top k a filter keeps, told from the row catalog when a process
 * has one, else from the candidates' own rows (their path and language
 * read and tested), which also says whether the filter is broad without
 * finding every row it keeps. A one-shot `codesift search --lang python`
 * on sympy (28,904 rows, 93 % Python) spent 100-330 ms on that: a catalog
 * of every row, its filter, then an exact scan of the quantized copy.
 */
import type { SearchFilter } from '../ports.js';
import { chunked, IN_BATCH, type SqliteContext, sqlList } from './sql.js';
import { rowPasses } from './store-filter.js';

export interface GraphCandidates {
  keys: ArrayLike<bigint | number>;
  distances: ArrayLike<number>;
}

/** The candidates (graph order) whose seq `keeps` accepts, as seq and distance. */
export function keptOf(
  found: GraphCandidates,
  keeps: (seq: number) => boolean,
): { seq: number; d: number }[] {
  const kept: { seq: number; d: number }[] = [];
  for (let i = 0; i < found.keys.length; i++) {
    const seq = Number(found.keys[i]);
    if (keeps(seq)) kept.push({ seq, d: found.distances[i]! });
  }
  return kept;
}

/** The candidates (graph order) whose rows `filter` keeps, read from the table; rows gone are left out. */
export function passingCandidates(
  ctx: SqliteContext,
  found: GraphCandidates,
  filter: SearchFilter,
): { seq: number; d: number }[] {
  const seqs = Array.from(found.keys, Number);
  const passes = new Set<number>();
  for (const batch of chunked(seqs, IN_BATCH)) {
    const rows = ctx
      .stmt(`SELECT seq, path, language FROM vector_rows WHERE seq IN (${sqlList(batch.length)})`)
      .all(...batch) as { seq: number; path: string; language: string }[];
    for (const r of rows) if (rowPasses(filter, r.path, r.language)) passes.add(r.seq);
  }
  return keptOf(found, (seq) => passes.has(seq));
}
