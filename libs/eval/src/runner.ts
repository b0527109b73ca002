import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { CONTEXT_PROMPT_VERSION, type ContextSummary } from '@codesift/context';
import type { LlmConfig } from '@codesift/llm';
import type { Embedder } from '@codesift/models';
import { type IndexProgress, indexRepository } from '@codesift/pipeline';
import type { FusionMode, SearchEngine, SearchRequest } from '@codesift/search';
import {
  BASELINE_WINDOW_LINES,
  type Bm25Index,
  type Bm25WindowIndex,
  buildBaselineIndex,
} from './baseline-bm25.js';
import {
  commitInfo,
  ensureCheckout,
  ensureIndex,
  type GitDirs,
  llmContextKey,
  modelWasMissed,
  readMarker,
} from './checkouts.js';
import {
  type ContextComparison,
  chunkDeltas,
  fileDeltas,
  rankChange,
  sumContextSummaries,
} from './context-comparison.js';
import {
  type AggregateCoverage,
  aggregateCoverage,
  type CoverageScores,
  type ReturnedRange,
  scoreCoverage,
} from './coverage.js';
import {
  type AggregateChunkScores,
  type AggregateScores,
  aggregate,
  aggregateChunks,
  type ChunkScores,
  collapseToFiles,
  type QueryScores,
  scoreChunkList,
  scoreQuery,
} from './metrics.js';
import { type EvalQuery, type QueryField, queryText } from './query-set.js';

/** Files each system returns per query: the metrics look at the top 10. */
export const TOP_K = 10;
/**
 * Windows the baseline returns for its coverage: enough to fill the line
 * budget, and as many lines as codesift's 10 hits can hold (10 units of at
 * most 120 lines), even where some windows are short file ends. Its chunk
 * list is still scored on the first TOP_K.
 */
export const BASELINE_COVERAGE_WINDOWS = 3 * TOP_K;

export type EvalTarget =
  /** Every query over one tree (e.g. the dogfood set over codesift itself). */
  | {
      kind: 'repo';
      root: string;
      indexPath: string;
      /** Gitignore-style patterns left out of both systems' corpus (e.g. the query set itself). */
      ignore?: string[];
    }
  /** Each query over its own repository at its own commit, checked out into a cache. */
  | { kind: 'checkouts'; cacheDir: string; gitDirs: GitDirs };

export interface EvalOptions {
  queries: EvalQuery[];
  queryField: QueryField;
  target: EvalTarget;
  /** Embedder for indexing and queries; absent means a keyword-only engine. The caller closes it. */
  embedder?: Embedder;
  /** Opens the engine over an index; the runner closes it. */
  openEngine: (indexPath: string) => Promise<SearchEngine>;
  fusion?: FusionMode;
  /**
   * Feature switches passed with every search (expansion, anchors,
   * focusScoring, definitions, codeSpans, installedFrames, forwarders, boilerplate, reportFocus, docDemotion,
   * fileCoverage, definedNames, nameOrder, history, fileScore, vectorWeight, planning, bridge), the LLM rewrite's mode and
   * the query variants (count, kinds, merge), for ablations.
   */
  switches?: EvalSwitches;
  /** Run the plain BM25 baseline side by side (default true). */
  baseline?: boolean;
  /**
   * Also index every checkout with LLM contexts from this model (an index of
   * its own, cached under its own key) and search it beside the
   * pattern-context index: `codesift eval --context llm`.
   */
  llmContext?: LlmConfig;
  /** Set file, for the report. */
  setPath?: string;
  /** One line of progress (stderr in the CLI). */
  log?: (line: string) => void;
  onIndexProgress?: (p: IndexProgress) => void;
}

export type EvalSwitches = Pick<
  SearchRequest,
  | 'expansion'
  | 'anchors'
  | 'focusScoring'
  | 'definitions'
  | 'codeSpans'
  | 'installedFrames'
  | 'forwarders'
  | 'boilerplate'
  | 'reportFocus'
  | 'docDemotion'
  | 'fileScore'
  | 'vectorWeight'
  | 'planning'
  | 'rewrite'
  | 'bridge'
  | 'minEvidence'
  | 'fileCoverage'
  | 'definedNames'
  | 'nameOrder'
  | 'vectorContrast'
  | 'history'
  | 'variants'
  | 'variantKinds'
  | 'variantMerge'
  | 'variantVectors'
>;

export interface SystemAnswer {
  /** Files in rank order (top TOP_K). */
  files: string[];
  firstRelevantRank: number | null;
  scores: QueryScores;
  latencyMs: number;
  /** Answer coverage of each file's returned range (codesift only; sets with line answers). */
  coverage?: CoverageScores;
  error?: string;
}

/** An uncollapsed list of ranges, scored as a chunk list. */
export interface ChunkAnswer {
  /** The top TOP_K ranges in rank order. */
  hits: ReturnedRange[];
  firstRelevantRank: number | null;
  scores: ChunkScores;
  latencyMs: number;
  /** Sets with line answers only. */
  coverage?: CoverageScores;
  error?: string;
}

export interface QueryResult {
  id: string;
  class?: string;
  repo?: string;
  commit?: string;
  relevantFiles: string[];
  /** The file-collapsed list (one result per file). */
  codesift: SystemAnswer;
  /** Plain BM25 over whole files. */
  bm25?: SystemAnswer;
  /** codesift over the index with LLM contexts (eval --context llm). */
  llm?: SystemAnswer;
  /**
   * The chunk lists: codesift's default search output (no collapsing) and
   * plain BM25 over BASELINE_WINDOW_LINES-line windows.
   */
  chunks: { codesift: ChunkAnswer; bm25?: ChunkAnswer; llm?: ChunkAnswer };
}

export interface GroupScores {
  /** File-collapsed lists. */
  codesift: AggregateScores;
  bm25?: AggregateScores;
  /** codesift over the LLM-context index (eval --context llm). */
  llm?: AggregateScores;
  /** Chunk lists (codesift as `codesift search` prints them; BM25 over windows). */
  chunks: {
    codesift: AggregateChunkScores;
    bm25?: AggregateChunkScores;
    llm?: AggregateChunkScores;
  };
  /** Answer coverage over the queries with line answers; absent when none has them. */
  coverage?: {
    codesiftChunks: AggregateCoverage;
    codesiftFiles: AggregateCoverage;
    bm25Windows?: AggregateCoverage;
  };
}

/** One index of a checkout: where it is, how it was prepared, how its contexts came about. */
export interface IndexRecord {
  indexPath: string;
  status: 'cached' | 'seeded' | 'built' | 'updated';
  seededFrom?: string;
  filesIndexed: number;
  indexSeconds: number;
  /** How this run's indexing made contexts (a cached index: as recorded when it was built). */
  context?: ContextSummary;
}

export interface CheckoutRecord extends IndexRecord {
  repo: string | null;
  commit: string | null;
  root: string;
  baselineFiles?: number;
  baselineSeconds?: number;
  /** The same checkout's LLM-context index (eval --context llm). */
  llm?: IndexRecord;
}

export interface EvalReport {
  set: string | null;
  queryField: QueryField;
  mode: EvalTarget['kind'];
  engine: {
    vectors: boolean;
    embedder: string | null;
    fusion: FusionMode | 'default';
    /** Switches that differ from the engine's defaults. */
    switches: EvalSwitches;
  };
  baseline: {
    name: 'bm25';
    k1: number;
    b: number;
    tokenizer: string;
    /** Lines per window of the windowed baseline (its chunk list and coverage). */
    windowLines: number;
  } | null;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  startedAt: string;
  seconds: number;
  overall: GroupScores;
  byClass: Record<string, GroupScores>;
  byRepo: Record<string, GroupScores>;
  checkouts: CheckoutRecord[];
  /** Pattern against LLM contexts (eval --context llm); null otherwise. */
  contextComparison: ContextComparison | null;
  queries: QueryResult[];
}

/** Runs a query set against codesift (and the baseline) and scores both. */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const log = options.log ?? (() => {});
  const withBaseline = options.baseline ?? true;
  const vectors = options.embedder !== undefined;
  const results: QueryResult[] = [];
  const checkouts: CheckoutRecord[] = [];
  const groups = groupByCheckout(options.queries, options.target);
  let done = 0;
  const total = options.queries.length;

  for (const [gi, group] of groups.entries()) {
    const where = group.repo ? `${group.repo}@${group.commit!.slice(0, 10)}` : group.label;
    const record = await prepareIndex(group, options);
    log(`[${gi + 1}/${groups.length}] ${where}: index ${describeIndex(record)}`);
    if (options.llmContext) {
      record.llm = await prepareLlmIndex(group, options, options.llmContext);
      log(`[${gi + 1}/${groups.length}] ${where}: LLM-context index ${describeIndex(record.llm)}`);
      if (record.llm.context?.modelAnswered === false) {
        log(
          `warning: ${options.llmContext.model} at ${options.llmContext.host} never answered; this index has pattern contexts only`,
        );
      }
    }

    let bm25: Bm25Index | undefined;
    let bm25Windows: Bm25WindowIndex | undefined;
    if (withBaseline) {
      const t0 = performance.now();
      const built = await buildBaselineIndex(record.root, {
        excludeDirs: [path.dirname(record.indexPath)],
        extraIgnore: options.target.kind === 'repo' ? options.target.ignore : undefined,
        windowLines: BASELINE_WINDOW_LINES,
      });
      bm25 = built.files;
      bm25Windows = built.windows;
      record.baselineFiles = bm25.size;
      record.baselineSeconds = round((performance.now() - t0) / 1000, 2);
    }
    checkouts.push(record);

    const engine = await options.openEngine(record.indexPath);
    const llmEngine = record.llm ? await options.openEngine(record.llm.indexPath) : undefined;
    try {
      // One untimed search first: a freshly opened index pays for statement
      // preparation and page-cache misses once, which a long-running server
      // does not pay per query. Its words match no set query, so nothing is
      // cached in favour of a timed one.
      for (const e of [engine, llmEngine]) {
        await e
          ?.search({
            query: 'warm up the index',
            limit: TOP_K,
            keywordOnly: !vectors,
            // The run's switches: --rewrite off must mean no model call at all.
            ...(options.switches ?? {}),
          })
          .catch(() => undefined);
      }
      for (const q of group.queries) {
        const text = queryText(q, options.queryField);
        const search = async (collapseFiles: boolean, over: SearchEngine = engine) => {
          const response = await over.search({
            query: text,
            limit: TOP_K,
            collapseFiles,
            keywordOnly: !vectors,
            ...(options.fusion ? { fusion: options.fusion } : {}),
            ...(options.switches ?? {}),
          });
          return response.results.map((r) => ({
            path: r.path,
            startLine: r.startLine,
            endLine: r.endLine,
          }));
        };
        const codesift = await timed(q, () => search(true), true);
        const result: QueryResult = {
          id: q.id,
          relevantFiles: q.relevantFiles,
          codesift,
          chunks: { codesift: await timedChunks(q, () => search(false)) },
        };
        if (llmEngine) {
          result.llm = await timed(q, () => search(true, llmEngine), true);
          result.chunks.llm = await timedChunks(q, () => search(false, llmEngine));
        }
        if (q.class !== undefined) result.class = q.class;
        if (q.repo !== undefined) result.repo = q.repo;
        if (q.commit !== undefined) result.commit = q.commit;
        if (bm25) {
          const index = bm25;
          // Whole-file hits have no range to score for coverage.
          result.bm25 = await timed(q, async () => wholeFiles(index.search(text, TOP_K)), false);
        }
        if (bm25Windows) {
          const windows = bm25Windows;
          result.chunks.bm25 = await timedChunks(
            q,
            async () =>
              windows.search(text, BASELINE_COVERAGE_WINDOWS).map((h) => ({
                path: h.path,
                startLine: h.startLine,
                endLine: h.endLine,
              })),
            // Equal returned lines: as many as codesift's chunk list gave this query.
            result.chunks.codesift.coverage?.linesReturned,
          );
        }
        results.push(result);
        done++;
      }
    } finally {
      await engine.close();
      await llmEngine?.close();
    }
    log(`queries ${done}/${total}`);
  }

  const groupScores = (rows: QueryResult[]): GroupScores => {
    const g: GroupScores = {
      codesift: aggregate(rows.map((r) => r.codesift)),
      chunks: { codesift: aggregateChunks(rows.map((r) => r.chunks.codesift)) },
    };
    if (withBaseline) {
      g.bm25 = aggregate(rows.map((r) => r.bm25!));
      g.chunks.bm25 = aggregateChunks(rows.map((r) => r.chunks.bm25!));
    }
    if (options.llmContext) {
      g.llm = aggregate(rows.map((r) => r.llm!));
      g.chunks.llm = aggregateChunks(rows.map((r) => r.chunks.llm!));
    }
    const codesiftChunks = aggregateCoverage(rows.map((r) => r.chunks.codesift.coverage));
    const codesiftFiles = aggregateCoverage(rows.map((r) => r.codesift.coverage));
    if (codesiftChunks && codesiftFiles) {
      g.coverage = { codesiftChunks, codesiftFiles };
      const windows = aggregateCoverage(rows.map((r) => r.chunks.bm25?.coverage));
      if (windows) g.coverage.bm25Windows = windows;
    }
    return g;
  };
  const groupBy = (key: (r: QueryResult) => string | undefined) => {
    const map = new Map<string, QueryResult[]>();
    for (const r of results) {
      const k = key(r);
      if (k === undefined) continue;
      map.set(k, [...(map.get(k) ?? []), r]);
    }
    return Object.fromEntries(
      [...map.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, rows]) => [k, groupScores(rows)]),
    );
  };
  const cpuList = cpus();
  const overall = groupScores(results);
  return {
    set: options.setPath ?? null,
    queryField: options.queryField,
    mode: options.target.kind,
    engine: {
      vectors,
      embedder: options.embedder?.name ?? null,
      fusion: options.fusion ?? 'default',
      switches: { ...(options.switches ?? {}) },
    },
    baseline: withBaseline
      ? {
          name: 'bm25',
          k1: 1.2,
          b: 0.75,
          tokenizer: 'lowercase, split on non-alphanumerics, English stop words removed',
          windowLines: BASELINE_WINDOW_LINES,
        }
      : null,
    machine: {
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
      memoryGiB: round(totalmem() / 2 ** 30, 1),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    startedAt,
    seconds: round((performance.now() - started) / 1000, 1),
    overall,
    byClass: groupBy((r) => r.class),
    byRepo: groupBy((r) => r.repo),
    checkouts,
    contextComparison: options.llmContext
      ? compareContexts(options.llmContext, overall, results, checkouts)
      : null,
    queries: results,
  };
}

interface CheckoutGroup {
  label: string;
  repo?: string;
  commit?: string;
  queries: EvalQuery[];
}

/** One group per distinct checkout, in first-seen order. */
function groupByCheckout(queries: EvalQuery[], target: EvalTarget): CheckoutGroup[] {
  if (target.kind === 'repo') return [{ label: target.root, queries }];
  const map = new Map<string, CheckoutGroup>();
  for (const q of queries) {
    if (!q.repo || !q.commit) {
      throw new Error(
        `query ${q.id} (line ${q.line}) has no repo and commit; use --repo <dir> for single-repository sets`,
      );
    }
    const key = `${q.repo}@${q.commit}`;
    let g = map.get(key);
    if (!g) {
      g = { label: key, repo: q.repo, commit: q.commit, queries: [] };
      map.set(key, g);
    }
    g.queries.push(q);
  }
  return [...map.values()];
}

async function prepareIndex(group: CheckoutGroup, options: EvalOptions): Promise<CheckoutRecord> {
  const target = options.target;
  if (target.kind === 'repo') {
    const summary = await indexRepository({
      root: target.root,
      indexPath: target.indexPath,
      vectors: options.embedder !== undefined,
      embedder: options.embedder,
      extraIgnore: target.ignore,
      onProgress: options.onIndexProgress,
    });
    const record: CheckoutRecord = {
      repo: null,
      commit: null,
      root: target.root,
      indexPath: target.indexPath,
      status: summary.filesIndexed > 0 ? 'updated' : 'cached',
      filesIndexed: summary.filesIndexed,
      indexSeconds: summary.seconds,
    };
    if (summary.context) record.context = summary.context;
    return record;
  }
  const { root, index } = await checkoutIndex(group, target, options);
  return { repo: group.repo!, commit: group.commit!, root, ...index };
}

/** The group's checkout and its cached index (pattern contexts, or LLM ones from `llm`). */
async function checkoutIndex(
  group: CheckoutGroup,
  target: Extract<EvalTarget, { kind: 'checkouts' }>,
  options: EvalOptions,
  llm?: LlmConfig,
): Promise<{ root: string; index: IndexRecord }> {
  const gitDir = target.gitDirs.resolve(group.repo!);
  const info = commitInfo(gitDir, group.commit!);
  const checkout = await ensureCheckout(target.cacheDir, group.repo!, group.commit!, gitDir);
  const idx = await ensureIndex({
    cacheDir: target.cacheDir,
    repo: group.repo!,
    commit: group.commit!,
    commitTime: info.time,
    checkout: checkout.dir,
    embedder: options.embedder,
    ...(llm ? { llm } : {}),
    gitDir,
    onProgress: options.onIndexProgress,
  });
  const index: IndexRecord = {
    indexPath: idx.indexPath,
    status: idx.status,
    filesIndexed: idx.filesIndexed,
    indexSeconds: idx.seconds,
  };
  if (idx.seededFrom) index.seededFrom = idx.seededFrom;
  if (idx.context) index.context = idx.context;
  return { root: checkout.dir, index };
}

/**
 * The checkout's index with LLM contexts. With checkouts it is cached beside
 * the pattern index under its own key; with --repo it lives in
 * `<index dir>/eval-contexts/<key>/`, updated incrementally like the pattern
 * index, and rebuilt (the context cache answering what it holds) when the
 * previous run missed the model.
 */
async function prepareLlmIndex(
  group: CheckoutGroup,
  options: EvalOptions,
  llm: LlmConfig,
): Promise<IndexRecord> {
  const target = options.target;
  if (target.kind === 'repo') {
    const dir = path.join(path.dirname(target.indexPath), 'eval-contexts', llmContextKey(llm));
    const markerFile = path.join(dir, 'last-run.json');
    const previous = readMarker(markerFile);
    // The pattern index's directory may lie inside the tree under another name than .codesift.
    const patternDir = path.relative(target.root, path.dirname(target.indexPath));
    const inside = !patternDir.startsWith('..') && !path.isAbsolute(patternDir) && patternDir;
    const summary = await indexRepository({
      root: target.root,
      indexPath: path.join(dir, 'index.db'),
      vectors: options.embedder !== undefined,
      embedder: options.embedder,
      llm,
      rebuild: modelWasMissed(previous?.context),
      extraIgnore: [
        ...(target.ignore ?? []),
        ...(inside ? [`/${patternDir.split(path.sep).join('/')}/`] : []),
      ],
      onProgress: options.onIndexProgress,
    });
    writeFileSync(markerFile, `${JSON.stringify({ context: summary.context }, null, 2)}\n`);
    const record: IndexRecord = {
      indexPath: path.join(dir, 'index.db'),
      status: summary.filesIndexed > 0 ? 'updated' : 'cached',
      filesIndexed: summary.filesIndexed,
      indexSeconds: summary.seconds,
    };
    if (summary.context) record.context = summary.context;
    return record;
  }
  return (await checkoutIndex(group, target, options, llm)).index;
}

function compareContexts(
  llm: LlmConfig,
  overall: GroupScores,
  results: readonly QueryResult[],
  checkouts: readonly CheckoutRecord[],
): ContextComparison {
  const queries = { better: 0, worse: 0, same: 0 };
  for (const r of results) {
    queries[rankChange(r.codesift.firstRelevantRank, r.llm!.firstRelevantRank)]++;
  }
  return {
    model: llm.model,
    promptVersion: CONTEXT_PROMPT_VERSION,
    deltas: {
      files: fileDeltas(overall.llm!, overall.codesift),
      chunks: chunkDeltas(overall.chunks.llm!, overall.chunks.codesift),
    },
    queries,
    indexes: {
      pattern: sumContextSummaries(
        'pattern',
        null,
        checkouts.map((c) => c.context),
      ),
      llm: sumContextSummaries(
        'llm',
        llm.model,
        checkouts.map((c) => c.llm?.context),
      ),
    },
  };
}

/**
 * Orders a checkout set so that each commit's index can be seeded from the one
 * before it: by repository, then by commit time (needs the git directories).
 */
export function orderForSeeding(queries: EvalQuery[], gitDirs: GitDirs): EvalQuery[] {
  const times = new Map<string, number>();
  for (const q of queries) {
    if (!q.repo || !q.commit) continue;
    const key = `${q.repo}@${q.commit}`;
    if (!times.has(key)) times.set(key, commitInfo(gitDirs.resolve(q.repo), q.commit).time);
  }
  const timeOf = (q: EvalQuery) => times.get(`${q.repo}@${q.commit}`) ?? 0;
  return [...queries].sort(
    (a, b) => (a.repo ?? '').localeCompare(b.repo ?? '') || timeOf(a) - timeOf(b),
  );
}

function describeIndex(r: CheckoutRecord | IndexRecord): string {
  switch (r.status) {
    case 'cached':
      return 'cached';
    case 'seeded':
      return `seeded from ${r.seededFrom?.slice(0, 10)}, ${r.filesIndexed} files re-indexed in ${r.indexSeconds.toFixed(1)}s`;
    default:
      return `${r.status}, ${r.filesIndexed} files in ${r.indexSeconds.toFixed(1)}s`;
  }
}

/** Runs one search, timed; a failing query is a miss in the report, not the end of a long run. */
async function attempt(
  run: () => Promise<ReturnedRange[]>,
): Promise<{ hits: ReturnedRange[]; latencyMs: number; error?: string }> {
  const t0 = performance.now();
  try {
    const hits = await run();
    return { hits, latencyMs: round(performance.now() - t0, 2) };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { hits: [], latencyMs: round(performance.now() - t0, 2), error };
  }
}

/** A file list: each file at the rank of its first range. */
async function timed(
  q: EvalQuery,
  run: () => Promise<ReturnedRange[]>,
  withCoverage: boolean,
): Promise<SystemAnswer> {
  const { hits, latencyMs, error } = await attempt(run);
  const files = collapseToFiles(hits.map((h) => h.path)).slice(0, TOP_K);
  const scores = scoreQuery(files, q.relevantFiles, q.grades);
  const answer: SystemAnswer = {
    files,
    firstRelevantRank: scores.firstRelevantRank,
    scores,
    latencyMs,
  };
  if (withCoverage && q.relevantLines) {
    const firstPerFile = files.map((f) => hits.find((h) => h.path === f)!);
    answer.coverage = scoreCoverage(firstPerFile, q.relevantLines);
  }
  if (error !== undefined) answer.error = error;
  return answer;
}

/** Whole-file hits as ranges; their lines are never scored. */
function wholeFiles(hits: readonly { path: string }[]): ReturnedRange[] {
  return hits.map((h) => ({ path: h.path, startLine: 1, endLine: 1 }));
}

/**
 * A chunk list, scored as returned: its first TOP_K hits as the list, all of
 * them for the coverage at a line budget (and at `matchLines` when given).
 */
async function timedChunks(
  q: EvalQuery,
  run: () => Promise<ReturnedRange[]>,
  matchLines?: number,
): Promise<ChunkAnswer> {
  const attempted = await attempt(run);
  const hits = attempted.hits.slice(0, TOP_K);
  const scores = scoreChunkList(
    hits.map((h) => h.path),
    q.relevantFiles,
  );
  const answer: ChunkAnswer = {
    hits,
    firstRelevantRank: scores.firstRelevantRank,
    scores,
    latencyMs: attempted.latencyMs,
  };
  if (q.relevantLines) {
    answer.coverage = scoreCoverage(
      attempted.hits,
      q.relevantLines,
      matchLines === undefined ? {} : { matchLines },
    );
  }
  if (attempted.error !== undefined) answer.error = attempted.error;
  return answer;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
