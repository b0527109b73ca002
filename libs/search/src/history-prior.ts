/**
 * The repository's history as a file prior, purely. The commits whose
 * messages best match a query (the store's BM25, best first) each vote for
 * the files they changed, a commit's score shared over its files by the
 * square root of their count, so a broad change says less about each file.
 * A file's vote is also weighed by how rarely the stored history changes
 * it, as IDF weighs a word: ln(1 + N/(1 + c)) / ln(1 + N) for a file c of
 * the N commits changed, so a README or a core module most changes touch
 * does not win every query. Test files get no votes: a fix's test names the
 * symptom, not where the code lives. The files then join the ranking by
 * rank fusion: the ranking keeps its order unless the history ranks a file
 * clearly higher. A file out of the query's focus (prose docs, data,
 * metadata) gets its vote times its focus multiplier, as its own score got
 * it.
 */

import { isTestPath } from '@codesift/analysis';
import type { HistoryMatch } from '@codesift/stores';
import type { QueryPlan } from './planning/types.js';

/** How much a vote for a file that `commits` of `stored` commits changed counts, 0..1. */
export function rarity(commits: number, stored: number): number {
  if (!(stored > 0)) return 1;
  return Math.log(1 + stored / (1 + Math.max(0, commits))) / Math.log(1 + stored);
}

/** Files by their history vote, best first, as 1-based ranks. */
export function historyRanks(
  matches: readonly HistoryMatch[],
  maxFiles: number,
): Map<string, number> {
  const votes = new Map<string, number>();
  for (const m of matches) {
    const files = m.files.filter((f) => !isTestPath(f.path));
    if (files.length === 0 || files.length > maxFiles) continue;
    const share = m.score / Math.sqrt(files.length);
    for (const f of files) {
      votes.set(f.path, (votes.get(f.path) ?? 0) + share * rarity(f.commits, m.stored));
    }
  }
  const order = [...votes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(order.map(([f], i) => [f, i + 1]));
}

/**
 * `ranked` (best first) with its first item kept first and the rest
 * reordered by 1/(k + i) + m x weight/(k + r), where i is an item's
 * 1-based position, r its file's history rank (no history rank: no second
 * term) and m its focus multiplier (1 when absent). Stable: equal scores
 * keep their order. The first place stays the code side's: its lead over
 * the second is often clear where the positions say it is not, and the
 * history's own first file is at times a script or hub that changes with
 * everything (measured: lifting into first place cost Acc@1 and MRR on
 * sets the rest of the prior helped; docs/EVALUATION.md, the history round).
 */
export function withHistory<T extends { path: string; focusMultiplier?: number }>(
  ranked: readonly T[],
  ranks: ReadonlyMap<string, number>,
  plan: Pick<QueryPlan['history'], 'weight' | 'k'>,
): T[] {
  if (ranks.size === 0 || ranked.length < 3) return [...ranked];
  const scored = ranked.slice(1).map((item, j) => {
    const i = j + 2;
    const r = ranks.get(item.path);
    return {
      item,
      i,
      score:
        1 / (plan.k + i) +
        (r === undefined ? 0 : ((item.focusMultiplier ?? 1) * plan.weight) / (plan.k + r)),
    };
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return [ranked[0]!, ...scored.map((s) => s.item)];
}
