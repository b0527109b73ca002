import { readFileContent, scan } from '@codesift/scanner';

/**
 * The reference point every report is compared with: plain Okapi BM25 over
 * whole files with a generic tokenizer (no identifier splitting, no code
 * awareness). It deliberately uses nothing from @codesift/analysis, so it
 * measures what a textbook search engine does on the same files.
 */

/** A common English stop word list (function words only). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren't as at be because been before being
below between both but by can cannot could couldn did didn do does doesn doing don down during each
few for from further had hadn has hasn have haven having he her here hers herself him himself his how
i if in into is isn it its itself just let me more most my myself no nor not now of off on once only
or other ought our ours ourselves out over own same shan she should shouldn so some such than that the
their theirs them themselves then there these they this those through to too under until up very was
wasn we were weren what when where which while who whom why will with won would wouldn you your yours
yourself yourselves s t d ll m o re ve y`
    .split(/\s+/)
    .filter((w) => w !== '' && !w.includes("'")),
);

/** Lowercase, split on anything not a letter or digit, drop stop words. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const t of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (t !== '' && !ENGLISH_STOP_WORDS.has(t)) out.push(t);
  }
  return out;
}

export interface Bm25Params {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

export interface Bm25Hit {
  path: string;
  score: number;
}

/** An in-memory BM25 index over whole documents. */
export class Bm25Index {
  private readonly paths: string[] = [];
  private readonly lengths: number[] = [];
  /** term -> (doc index -> term frequency) */
  private readonly postings = new Map<string, Map<number, number>>();
  private totalLength = 0;

  constructor(private readonly params: Bm25Params = DEFAULT_BM25) {}

  get size(): number {
    return this.paths.length;
  }

  add(path: string, text: string): void {
    const doc = this.paths.length;
    const tokens = tokenize(text);
    this.paths.push(path);
    this.lengths.push(tokens.length);
    this.totalLength += tokens.length;
    for (const t of tokens) {
      let posting = this.postings.get(t);
      if (!posting) {
        posting = new Map();
        this.postings.set(t, posting);
      }
      posting.set(doc, (posting.get(doc) ?? 0) + 1);
    }
  }

  /** Lucene's non-negative idf: ln(1 + (N - df + 0.5) / (df + 0.5)). */
  idf(term: string): number {
    const df = this.postings.get(term)?.size ?? 0;
    const n = this.paths.length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * Scores every document containing a query term. Each query token counts
   * as often as it occurs in the query (as the textbook sum over query terms
   * does), so a long issue text weighs the words it repeats. Ties break by path.
   */
  search(query: string, limit: number): Bm25Hit[] {
    const n = this.paths.length;
    if (n === 0) return [];
    const avgdl = this.totalLength / n || 1;
    const { k1, b } = this.params;
    const qtf = new Map<string, number>();
    for (const t of tokenize(query)) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const scores = new Map<number, number>();
    for (const [term, count] of qtf) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = this.idf(term);
      for (const [doc, tf] of posting) {
        const norm = tf + k1 * (1 - b + (b * this.lengths[doc]!) / avgdl);
        scores.set(doc, (scores.get(doc) ?? 0) + count * idf * ((tf * (k1 + 1)) / norm));
      }
    }
    return [...scores]
      .map(([doc, score]) => ({ path: this.paths[doc]!, score }))
      .sort((x, y) => y.score - x.score || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
      .slice(0, limit);
  }
}

/** Lines per window of the windowed baseline: a plain fixed-size passage, no code awareness. */
export const BASELINE_WINDOW_LINES = 40;

export interface Bm25WindowHit {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
}

/**
 * Plain BM25 over consecutive, non-overlapping windows of a fixed number of
 * lines: the textbook passage retriever, the baseline for answer coverage and
 * for the chunk list.
 */
export class Bm25WindowIndex {
  private readonly index: Bm25Index;
  private readonly windows = new Map<
    string,
    { path: string; startLine: number; endLine: number }
  >();

  constructor(
    readonly windowLines = BASELINE_WINDOW_LINES,
    params: Bm25Params = DEFAULT_BM25,
  ) {
    this.index = new Bm25Index(params);
  }

  get size(): number {
    return this.index.size;
  }

  add(path: string, text: string): void {
    const lines = text.split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    for (let start = 0; start < lines.length; start += this.windowLines) {
      const end = Math.min(lines.length, start + this.windowLines);
      // The key sorts like (path, start), so BM25's tie break by key keeps file order.
      const key = `${path}\u0000${String(start).padStart(9, '0')}`;
      this.windows.set(key, { path, startLine: start + 1, endLine: end });
      this.index.add(key, lines.slice(start, end).join('\n'));
    }
  }

  search(query: string, limit: number): Bm25WindowHit[] {
    return this.index
      .search(query, limit)
      .map((h) => ({ ...this.windows.get(h.path)!, score: h.score }));
  }
}

/**
 * Builds the baseline over the files codesift itself would index in `root`:
 * the same scanner rules and the same reader, so both systems see one corpus.
 * With `windowLines`, a windowed index over the same files is built too.
 */
export async function buildBaselineIndex(
  root: string,
  options: {
    excludeDirs?: string[];
    extraIgnore?: string[];
    params?: Bm25Params;
    windowLines?: number;
  } = {},
): Promise<{ files: Bm25Index; windows?: Bm25WindowIndex }> {
  const scanned = await scan({
    root,
    excludeDirs: options.excludeDirs,
    extraIgnore: options.extraIgnore,
  });
  const files = new Bm25Index(options.params);
  const windows =
    options.windowLines === undefined
      ? undefined
      : new Bm25WindowIndex(options.windowLines, options.params);
  const CONCURRENCY = 16;
  for (let i = 0; i < scanned.files.length; i += CONCURRENCY) {
    const outcomes = await Promise.all(
      scanned.files.slice(i, i + CONCURRENCY).map((f) => readFileContent(f)),
    );
    for (const o of outcomes) {
      if (!o.ok) continue;
      files.add(o.file.path, o.file.text);
      windows?.add(o.file.path, o.file.text);
    }
  }
  return windows ? { files, windows } : { files };
}
