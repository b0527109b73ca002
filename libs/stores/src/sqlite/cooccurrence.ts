/**
 * How often query words and identifiers occur in the same chunks, for the
 * offline vocabulary bridge (@codesift/search bridge-step.ts): from the
 * index-time table (bridge-assoc.ts, one indexed read per identifier) when
 * the index has it up to date, else from the FTS5 postings (one rowid list
 * per term), which every index has: an index written before the table, or
 * one whose writer has not flushed yet, still answers, exactly.
 *
 * The work is bounded by the caller's lists (a query's words, a vocabulary
 * slice) and by `maxShare`: a term in more than that share of the chunks is counted
 * (its document frequency) but its postings are not read; such a word says
 * little about any identifier anyway.
 */
import { quoteTerm } from '../fts-query.js';
import type { Cooccurrence, CooccurrenceQuery } from '../ports.js';
import type { BridgeAssoc } from './bridge-assoc.js';
import type { SqliteContext } from './sql.js';
import type { TermStats } from './term-stats.js';

/** Most words and identifier terms read per call; the rest are left out. */
export const MAX_COOCCURRENCE_TERMS = 64;

export function countCooccurrence(
  ctx: SqliteContext,
  stats: TermStats,
  q: CooccurrenceQuery,
  assoc: BridgeAssoc | null = null,
): Cooccurrence {
  const words = unique(q.words);
  const terms = unique(q.terms);
  const df = stats.lookup([...new Set([...words, ...terms])]);
  const chunks = stats.total();
  const readable = (t: string) => {
    const n = df.get(t) ?? 0;
    return n > 0 && n <= q.maxShare * chunks;
  };
  if (assoc?.current()) {
    const rows = assoc.read(terms.filter(readable), new Set(words.filter(readable)));
    return { chunks, df: Object.fromEntries(df), joint: Object.fromEntries(rows) };
  }
  const postings = (t: string): number[] =>
    (
      ctx
        .stmt('SELECT rowid AS seq FROM chunks_fts WHERE chunks_fts MATCH ?')
        .all(quoteTerm(t)) as { seq: number }[]
    ).map((r) => r.seq);
  const wordSets = new Map<string, Set<number>>();
  for (const w of words) if (readable(w)) wordSets.set(w, new Set(postings(w)));
  const joint: Record<string, Record<string, number>> = {};
  for (const t of terms) {
    if (!readable(t) || wordSets.size === 0) continue;
    const counts: Record<string, number> = {};
    const rows = postings(t);
    for (const [w, set] of wordSets) {
      let n = 0;
      for (const seq of rows) if (set.has(seq)) n++;
      if (n > 0) counts[w] = n;
    }
    joint[t] = counts;
  }
  return { chunks, df: Object.fromEntries(df), joint };
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list.filter((t) => typeof t === 'string' && t !== ''))].slice(
    0,
    MAX_COOCCURRENCE_TERMS,
  );
}
