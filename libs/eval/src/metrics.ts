/**
 * Retrieval metrics at file level. A system's answer is a list of file paths
 * in rank order (chunk results already collapsed to their files); the truth is
 * a set of relevant files, optionally with graded relevance.
 */

export const CUTOFFS = [1, 5, 10] as const;

/** How good one ranked answer is for one query. */
export interface QueryScores {
  /** 1-based rank of the first relevant file in the ranking, null if none was returned. */
  firstRelevantRank: number | null;
  acc1: number;
  acc5: number;
  acc10: number;
  recall5: number;
  recall10: number;
  mrr10: number;
  ndcg10: number;
}

/**
 * How good an uncollapsed chunk list is (what `codesift search` prints by
 * default): a chunk is a hit when its file is relevant, so two chunks of one
 * relevant file are two hits.
 */
export interface ChunkScores {
  /** 1-based rank of the first chunk in a relevant file, null if none. */
  firstRelevantRank: number | null;
  acc1: number;
  acc5: number;
  acc10: number;
  mrr10: number;
  /** Chunks in relevant files among the first 10, over 10. */
  precision10: number;
}

/** Mean scores over a group of queries, plus latency percentiles. */
export interface AggregateScores {
  count: number;
  acc1: number;
  acc5: number;
  acc10: number;
  recall5: number;
  recall10: number;
  mrr10: number;
  ndcg10: number;
  latencyMs: { median: number; p95: number; mean: number };
}

/**
 * Keeps the first occurrence of each path: a chunk-level ranking becomes a
 * file-level one where a file sits at the rank of its best chunk.
 */
export function collapseToFiles(paths: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of paths) {
    if (seen.has(p)) continue;
    seen.add(p);
    out.push(p);
  }
  return out;
}

/**
 * Scores one ranking. `grades` maps relevant paths to a positive grade; a
 * relevant path without a grade counts as grade 1, so without grades nDCG is
 * the binary kind.
 */
export function scoreQuery(
  ranking: readonly string[],
  relevant: readonly string[],
  grades?: Readonly<Record<string, number>>,
): QueryScores {
  const files = collapseToFiles(ranking);
  const rel = new Set(relevant);
  const gradeOf = (p: string): number => (rel.has(p) ? (grades?.[p] ?? 1) : 0);
  const firstIndex = files.findIndex((p) => rel.has(p));
  const firstRelevantRank = firstIndex < 0 ? null : firstIndex + 1;
  const acc = (k: number) => (firstRelevantRank !== null && firstRelevantRank <= k ? 1 : 0);
  const recall = (k: number) => {
    if (rel.size === 0) return 0;
    let hits = 0;
    for (const p of files.slice(0, k)) if (rel.has(p)) hits++;
    return hits / rel.size;
  };
  return {
    firstRelevantRank,
    acc1: acc(1),
    acc5: acc(5),
    acc10: acc(10),
    recall5: recall(5),
    recall10: recall(10),
    mrr10: firstRelevantRank !== null && firstRelevantRank <= 10 ? 1 / firstRelevantRank : 0,
    ndcg10: ndcgAt(10, files.map(gradeOf), [...rel].map(gradeOf)),
  };
}

/** Scores a chunk list in rank order, given as the file path of each chunk. */
export function scoreChunkList(
  chunkPaths: readonly string[],
  relevant: readonly string[],
): ChunkScores {
  const rel = new Set(relevant);
  const top = chunkPaths.slice(0, 10);
  const firstIndex = top.findIndex((p) => rel.has(p));
  const firstRelevantRank = firstIndex < 0 ? null : firstIndex + 1;
  const acc = (k: number) => (firstRelevantRank !== null && firstRelevantRank <= k ? 1 : 0);
  return {
    firstRelevantRank,
    acc1: acc(1),
    acc5: acc(5),
    acc10: acc(10),
    mrr10: firstRelevantRank === null ? 0 : 1 / firstRelevantRank,
    precision10: top.filter((p) => rel.has(p)).length / 10,
  };
}

/**
 * nDCG@k with exponential gain (2^g - 1) and a log2(rank + 1) discount; with
 * binary grades this is the usual binary nDCG. The ideal ranking orders every
 * relevant item by grade, including ones the system never returned.
 */
export function ndcgAt(k: number, gainsInRankOrder: number[], allRelevantGrades: number[]): number {
  const dcg = (grades: number[]) =>
    grades.slice(0, k).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg([...allRelevantGrades].filter((g) => g > 0).sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(gainsInRankOrder) / ideal;
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Median as the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function aggregate(
  rows: readonly { scores: QueryScores; latencyMs: number }[],
): AggregateScores {
  const n = rows.length;
  const mean = (pick: (s: QueryScores) => number) => meanOf(rows, (r) => pick(r.scores));
  return {
    count: n,
    acc1: mean((s) => s.acc1),
    acc5: mean((s) => s.acc5),
    acc10: mean((s) => s.acc10),
    recall5: mean((s) => s.recall5),
    recall10: mean((s) => s.recall10),
    mrr10: mean((s) => s.mrr10),
    ndcg10: mean((s) => s.ndcg10),
    latencyMs: latencySummary(rows.map((r) => r.latencyMs)),
  };
}

/** Mean chunk-list scores over a group of queries. */
export interface AggregateChunkScores {
  count: number;
  acc1: number;
  acc5: number;
  acc10: number;
  mrr10: number;
  precision10: number;
  latencyMs: { median: number; p95: number; mean: number };
}

export function aggregateChunks(
  rows: readonly { scores: ChunkScores; latencyMs: number }[],
): AggregateChunkScores {
  const mean = (pick: (s: ChunkScores) => number) => meanOf(rows, (r) => pick(r.scores));
  return {
    count: rows.length,
    acc1: mean((s) => s.acc1),
    acc5: mean((s) => s.acc5),
    acc10: mean((s) => s.acc10),
    mrr10: mean((s) => s.mrr10),
    precision10: mean((s) => s.precision10),
    latencyMs: latencySummary(rows.map((r) => r.latencyMs)),
  };
}

/** Mean of `pick` over rows; 0 for none. */
export function meanOf<T>(rows: readonly T[], pick: (row: T) => number): number {
  return rows.length === 0 ? 0 : rows.reduce((sum, r) => sum + pick(r), 0) / rows.length;
}

function latencySummary(latencies: number[]): { median: number; p95: number; mean: number } {
  return {
    median: median(latencies),
    p95: percentile(latencies, 95),
    mean: meanOf(latencies, (l) => l),
  };
}
