import { meanOf } from './metrics.js';
import type { RelevantLines } from './query-set.js';

/**
 * Answer coverage: how much of the code that answers a query a reader sees in
 * the returned ranges. File accuracy says the right file came back; coverage
 * says whether the right lines of it did.
 */

/** Returned lines compared at an equal budget, so a system is not rewarded for long hits. */
export const COVERAGE_BUDGET_LINES = 400;
/** Hits read for the per-hit coverage. */
export const COVERAGE_HITS = 10;

/** One returned range, 1-based inclusive lines. */
export interface ReturnedRange {
  path: string;
  startLine: number;
  endLine: number;
}

export interface CoverageScores {
  /** Share of answering lines inside the first COVERAGE_HITS ranges. */
  atHits: number;
  /** Share of answering lines inside the first COVERAGE_BUDGET_LINES returned lines. */
  atBudget: number;
  /** Lines the first COVERAGE_HITS ranges hold (a line in two ranges counts twice). */
  linesReturned: number;
  /**
   * Share of answering lines inside the first `matchLines` returned lines,
   * when asked: the baseline read for as many lines as codesift's first
   * COVERAGE_HITS hits hold for the same query, so the two are compared at
   * equal returned lines and not only at equal hit counts.
   */
  atMatchedLines?: number;
}

export interface AggregateCoverage {
  /** Queries with line-level answers (the others are left out of the means). */
  count: number;
  atHits: number;
  atBudget: number;
  linesReturned: number;
  budgetLines: number;
  /** Mean of atMatchedLines over the queries that have it; absent when none does. */
  atMatchedLines?: number;
}

/**
 * Scores ranges in rank order against line-level answers. The budget walks
 * the ranges in order and takes each one's lines from its start until the
 * budget is spent, so the last range may count only in part.
 */
export function scoreCoverage(
  returned: readonly ReturnedRange[],
  answer: readonly RelevantLines[],
  options: { hits?: number; budgetLines?: number; matchLines?: number } = {},
): CoverageScores {
  const hits = options.hits ?? COVERAGE_HITS;
  const budget = options.budgetLines ?? COVERAGE_BUDGET_LINES;
  const wanted = new Map<string, Set<number>>();
  for (const { path, ranges } of answer) {
    let lines = wanted.get(path);
    if (!lines) {
      lines = new Set();
      wanted.set(path, lines);
    }
    for (const r of ranges) for (let l = r.start; l <= r.end; l++) lines.add(l);
  }
  let total = 0;
  for (const lines of wanted.values()) total += lines.size;

  const share = (ranges: readonly ReturnedRange[]): number => {
    if (total === 0) return 0;
    const seen = new Set<string>();
    for (const r of ranges) {
      const lines = wanted.get(r.path);
      if (!lines) continue;
      for (let l = r.startLine; l <= r.endLine; l++) if (lines.has(l)) seen.add(`${r.path}:${l}`);
    }
    return seen.size / total;
  };

  const scores: CoverageScores = {
    atHits: share(returned.slice(0, hits)),
    atBudget: share(firstLines(returned, budget)),
    linesReturned: linesIn(returned.slice(0, hits)),
  };
  if (options.matchLines !== undefined) {
    scores.atMatchedLines = share(firstLines(returned, options.matchLines));
  }
  return scores;
}

/** Lines the ranges hold, a line in two ranges counted twice (as a reader reads them). */
export function linesIn(ranges: readonly ReturnedRange[]): number {
  return ranges.reduce((sum, r) => sum + (r.endLine - r.startLine + 1), 0);
}

/**
 * The first `budget` returned lines: the ranges in rank order, each from its
 * start, the last one cut where the budget runs out.
 */
function firstLines(returned: readonly ReturnedRange[], budget: number): ReturnedRange[] {
  const out: ReturnedRange[] = [];
  let left = budget;
  for (const r of returned) {
    if (left <= 0) break;
    const take = Math.min(left, r.endLine - r.startLine + 1);
    out.push({ path: r.path, startLine: r.startLine, endLine: r.startLine + take - 1 });
    left -= take;
  }
  return out;
}

/** Means over the queries that have coverage scores. */
export function aggregateCoverage(
  rows: readonly (CoverageScores | undefined)[],
): AggregateCoverage | undefined {
  const scored = rows.filter((r): r is CoverageScores => r !== undefined);
  if (scored.length === 0) return undefined;
  const agg: AggregateCoverage = {
    count: scored.length,
    atHits: meanOf(scored, (r) => r.atHits),
    atBudget: meanOf(scored, (r) => r.atBudget),
    linesReturned: meanOf(scored, (r) => r.linesReturned),
    budgetLines: COVERAGE_BUDGET_LINES,
  };
  const matched = scored.filter((r) => r.atMatchedLines !== undefined);
  if (matched.length > 0) agg.atMatchedLines = meanOf(matched, (r) => r.atMatchedLines!);
  return agg;
}
