/**
 * The search engine: hybrid BM25 + vector search over a SearchIndex
 * (search-index.ts). openLocalEngine opens one SQLite file (see
 * @codesift/stores openSqliteIndex); openEngine takes any store set, e.g.
 * the cluster's Elasticsearch + Qdrant + symbol service
 * (@codesift/stores-cluster). Both run the same code below: same planner,
 * fusion, boosts, focus, deadlines and degraded reporting.
 *
 * One search executes a query plan (planning/plan-query.ts):
 * 1. parse the query (@codesift/analysis parseQuery) and plan it: pure,
 *    no I/O, every decision recorded in the plan;
 * 2. in parallel, keyword search with the plan's weighted terms, and embed
 *    the plan's vector text then vector search (skipped when the plan says
 *    so); each side over-fetches candidates and runs under the deadline (a
 *    failed or late side is dropped and reported);
 * 3. fuse (RRF or linear with the plan's weights, see fusion.ts);
 * 4. boosts: definition boost, anchor boost, focus multiplier
 *    (planning/rescore.ts), then optionally collapse to one hit per file;
 * 5. hydrate the top results from the chunk store with a focused snippet.
 * The response carries the plan and per-stage timings.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { mergeSynonymTables, type ParsedQuery } from '@codesift/analysis';
import type { Chunk } from '@codesift/core';
import {
  CodesiftError,
  errorMessage,
  isCodesiftError,
  resolveInsideRoot,
  type SymbolInfo,
  splitRepositoryPath,
} from '@codesift/core';
import type { Embedder } from '@codesift/models';
import {
  type KeywordHit,
  openSqliteIndex,
  type SearchFilter as StoreFilter,
  type VectorHit,
} from '@codesift/stores';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { collapseByPath, collapseDecayed } from './collapse.js';
import { type Definition, holdsDefinition } from './definitions.js';
import { embedderForIndex } from './embedder-for-index.js';
import { type CompiledFilter, compileFilter } from './filters.js';
import { type FusedHit, fuse } from './fusion.js';
import {
  DEFAULT_LIMIT,
  MAX_CANDIDATES,
  MAX_LIMIT,
  NO_PLANNING,
  planQuery,
  planText,
  rewriteAndParse,
} from './planning/plan-query.js';
import { type Rescored, rescore } from './planning/rescore.js';
import type { FusionMode, PlannerConfig, PlanOptions, QueryPlan } from './planning/types.js';
import {
  findConfigFile,
  plannerConfigFrom,
  readSearchConfig,
  type SearchConfig,
} from './search-config.js';
import { localSearchIndex, type SearchIndex } from './search-index.js';
import { runSide, type SideOutcome } from './side-runner.js';
import { selectSnippet } from './snippet.js';
import type {
  IndexStatusInfo,
  SearchEngine,
  SearchRequest,
  SearchResponse,
  SearchResult,
  Snippet,
} from './types.js';

/** How an engine searches, whatever its stores. */
export interface EngineSettings {
  /**
   * The query embedder. undefined: recreate the one the index was built with
   * (builtin, or Ollama via env OLLAMA_HOST when the index says
   * 'ollama:<model>'); null: keyword only. A given embedder stays the
   * caller's to close.
   */
  embedder?: Embedder | null;
  env?: NodeJS.ProcessEnv;
  /** Default fusion; wins over the repository's config file. */
  fusion?: FusionMode;
  vectorWeight?: number;
  /**
   * Search settings over the repository's config file (see
   * search-config.ts); null: ignore the file.
   */
  config?: SearchConfig | null;
}

export interface LocalEngineOptions extends EngineSettings {
  /** The SQLite index file (usually <root>/.codesift/index.db). */
  indexPath: string;
}

export interface EngineOptions extends EngineSettings {
  /**
   * The stores to search. The engine owns it once openEngine resolves
   * (engine.close() closes it); if openEngine rejects, it stays the caller's.
   */
  index: SearchIndex;
}

export { DEFAULT_LIMIT, MAX_LIMIT };

/** Lines `getSnippet` returns at most, so a careless range cannot dump a huge file. */
const MAX_SNIPPET_LINES = 2000;

const INDEX_HINT = 'run `codesift index <dir>` to build it, or pass the index path';

type VectorState =
  | { kind: 'none' }
  | { kind: 'given'; embedder: Embedder }
  | { kind: 'owned'; loading: Promise<Embedder | { error: unknown }> };

export async function openLocalEngine(options: LocalEngineOptions): Promise<SearchEngine> {
  const indexPath = path.resolve(options.indexPath);
  if (!existsSync(indexPath)) {
    throw new CodesiftError('INDEX_NOT_FOUND', `no index at ${indexPath}`, { hint: INDEX_HINT });
  }
  if (statSync(indexPath).isDirectory()) {
    throw new CodesiftError('INDEX_NOT_FOUND', `${indexPath} is a directory, not an index file`, {
      hint: 'pass the index .db file (usually <root>/.codesift/index.db)',
    });
  }
  checkSettings(options);
  const index = openSqliteIndex(indexPath, { readonly: true });
  try {
    return await createEngine(localSearchIndex(index, indexPath), options);
  } catch (err) {
    index.close();
    throw err;
  }
}

/**
 * The engine over any store set (see SearchIndex): the cluster's query
 * service opens its stores (@codesift/stores-cluster openSearchIndexFromEnv)
 * and searches them exactly as the local engine searches SQLite.
 */
export async function openEngine(options: EngineOptions): Promise<SearchEngine> {
  checkSettings(options);
  return createEngine(options.index, options);
}

function checkSettings(options: EngineSettings): void {
  if (options.fusion !== undefined) checkFusion(options.fusion);
  if (options.vectorWeight !== undefined) checkWeight(options.vectorWeight);
}

async function createEngine(index: SearchIndex, options: EngineSettings): Promise<SearchEngine> {
  const meta = await index.meta();
  const planner = plannerConfigFor(meta.root, options);
  let vector: VectorState = { kind: 'none' };
  if (meta.embedder !== null && meta.dimensions !== null && options.embedder !== null) {
    if (options.embedder) {
      if (
        options.embedder.name !== meta.embedder ||
        options.embedder.dimensions !== meta.dimensions
      ) {
        throw new CodesiftError(
          'INDEX_INCOMPATIBLE',
          `index ${index.location} was embedded with ${meta.embedder} (${meta.dimensions}-d), not ${options.embedder.name} (${options.embedder.dimensions}-d)`,
          { hint: 'search with the index’s embedder, keyword only, or re-index' },
        );
      }
      vector = { kind: 'given', embedder: options.embedder };
    } else {
      // Started now, awaited by the first search: loading overlaps with the caller's work.
      const loading = embedderForIndex(meta.embedder, meta.dimensions, options.env ?? process.env)
        .then((e): Embedder | { error: unknown } => e)
        .catch((error: unknown) => ({ error }));
      vector = { kind: 'owned', loading };
    }
  }
  return new Engine(index, vector, planner);
}

/** Defaults < the repository's config file < `options.config` < `options.fusion`/`vectorWeight`. */
function plannerConfigFor(root: string | null, options: EngineSettings): PlannerConfig {
  let config: SearchConfig = {};
  if (options.config !== null && root !== null) {
    const file = findConfigFile(root);
    if (file !== null) config = readSearchConfig(file);
  }
  config = { ...config, ...(options.config ?? {}) };
  if (options.fusion !== undefined) config.fusion = options.fusion;
  if (options.vectorWeight !== undefined) config.vectorWeight = options.vectorWeight;
  return plannerConfigFrom(config);
}

function checkFusion(f: unknown): asserts f is FusionMode {
  if (f !== 'rrf' && f !== 'linear' && f !== 'adaptive') {
    throw new CodesiftError('INVALID_ARGUMENT', `unknown fusion ${JSON.stringify(f)}`, {
      hint: "use 'rrf', 'linear' or 'adaptive'",
    });
  }
}

function checkWeight(w: number, name = 'vectorWeight'): void {
  if (!(typeof w === 'number' && w >= 0 && w <= 1)) {
    throw new CodesiftError('INVALID_ARGUMENT', `${name} must be within 0..1, got ${w}`);
  }
}

const FOCI = new Set(['implementation', 'tests', 'all']);

function normalizeLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isFinite(limit) || limit < 1) {
    throw new CodesiftError('INVALID_ARGUMENT', `limit must be a positive number, got ${limit}`);
  }
  return Math.min(MAX_LIMIT, Math.floor(limit));
}

/** Checks a request's options and turns them into the planner's. */
function planOptions(request: SearchRequest, vectorAvailable: boolean): PlanOptions {
  const limit = normalizeLimit(request.limit);
  if (request.fusion !== undefined) checkFusion(request.fusion);
  if (request.vectorWeight !== undefined) checkWeight(request.vectorWeight);
  if (request.rrfK !== undefined && !(request.rrfK > 0)) {
    throw new CodesiftError('INVALID_ARGUMENT', `rrfK must be positive, got ${request.rrfK}`);
  }
  if (request.focus !== undefined && !FOCI.has(request.focus)) {
    throw new CodesiftError('INVALID_ARGUMENT', `unknown focus ${JSON.stringify(request.focus)}`, {
      hint: "use 'implementation', 'tests' or 'all'",
    });
  }
  const out: PlanOptions = { limit, vectorAvailable };
  if (request.fusion !== undefined) out.fusion = request.fusion;
  if (request.vectorWeight !== undefined) out.vectorWeight = request.vectorWeight;
  if (request.rrfK !== undefined) out.rrfK = request.rrfK;
  if (request.focus !== undefined) out.focus = request.focus;
  if (request.expansion !== undefined) out.expansion = request.expansion !== false;
  if (request.anchors !== undefined) out.anchors = request.anchors !== false;
  if (request.focusScoring !== undefined) out.focusScoring = request.focusScoring !== false;
  if (request.definitions !== undefined) out.definitions = request.definitions !== false;
  if (request.boilerplate !== undefined) out.boilerplate = request.boilerplate !== false;
  if (request.reportFocus !== undefined) out.reportFocus = request.reportFocus !== false;
  if (request.docDemotion !== undefined) out.docDemotion = request.docDemotion !== false;
  if (request.fileScore !== undefined) {
    if (
      request.fileScore !== 'best' &&
      request.fileScore !== 'decayed' &&
      request.fileScore !== 'auto'
    ) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `unknown fileScore ${JSON.stringify(request.fileScore)}`,
        { hint: "use 'best', 'decayed' or 'auto'" },
      );
    }
    out.fileScore = request.fileScore;
  }
  if (request.planning === false) {
    // Everything the planner decides, off; explicit options above still win.
    for (const [k, v] of Object.entries(NO_PLANNING)) {
      if (request[k as keyof SearchRequest] === undefined) (out as Record<string, unknown>)[k] = v;
    }
  }
  if (request.keywordOnly) out.keywordOnly = true;
  if (request.collapseFiles) out.collapseFiles = true;
  if (request.filter !== undefined) out.filter = request.filter;
  return out;
}

/**
 * Parses and plans a request the way the engine does, without searching:
 * for tests, benchmarks and tools that want the plan alone.
 */
export function planSearch(
  request: SearchRequest,
  config: PlannerConfig,
  options: { vectorAvailable?: boolean } = {},
): { parsed: ParsedQuery; plan: QueryPlan } {
  return planText(
    request.query,
    planOptions(request, options.vectorAvailable ?? true),
    withRequestSynonyms(config, request),
  );
}

function withRequestSynonyms(config: PlannerConfig, request: SearchRequest): PlannerConfig {
  if (request.synonyms === undefined) return config;
  return {
    ...config,
    synonyms: mergeSynonymTables(
      config.synonyms,
      request.synonyms,
      request.synonymsMode ?? 'extend',
    ),
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Fetches `want` hits that pass `accepts`, asking the store for more while the globs reject too many. */
async function fetchAccepted<T extends { path: string }>(
  fetch: (n: number) => Promise<T[]>,
  want: number,
  filter: CompiledFilter,
): Promise<T[]> {
  const accepts = filter.accepts;
  let n = Math.min(MAX_CANDIDATES, filter.lossy ? want * 4 : want);
  for (;;) {
    const hits = await fetch(n);
    if (accepts === null) return hits;
    const kept = hits.filter((h) => accepts(h.path));
    if (kept.length >= want || hits.length < n || n >= MAX_CANDIDATES) return kept.slice(0, want);
    n = Math.min(MAX_CANDIDATES, n * 4);
  }
}

type Ranked = FusedHit & Rescored;

class Engine implements SearchEngine {
  private closed = false;
  private chunkCount: { at: number; n: number } | null = null;

  constructor(
    private readonly index: SearchIndex,
    private readonly vector: VectorState,
    private readonly planner: PlannerConfig,
  ) {}

  async search(request: SearchRequest): Promise<SearchResponse> {
    const t0 = performance.now();
    this.ensureOpen();
    const query = typeof request?.query === 'string' ? request.query : '';
    if (query.trim() === '') {
      throw new CodesiftError('INVALID_ARGUMENT', 'the query is empty', {
        hint: 'pass the words, identifier or pasted text to search for',
      });
    }
    if (request.deadlineMs !== undefined && !(request.deadlineMs > 0)) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `deadlineMs must be positive, got ${request.deadlineMs}`,
      );
    }
    const options = planOptions(request, this.vector.kind !== 'none');
    request.signal?.throwIfAborted();

    const timings: Record<string, number> = {};
    const degraded: string[] = [];
    const config = withRequestSynonyms(this.planner, request);
    const { parsed, rewrite } = rewriteAndParse(query, options, config);
    const tp = performance.now();
    timings.parse = tp - t0;
    let plan = planQuery(parsed, options, config, rewrite);
    const filter = compileFilter(plan.filter);
    timings.plan = performance.now() - tp;

    // Runs beside the sides (a remote index answers over the network); a failure only
    // degrades the count, like a failed side degrades the answer.
    const counting = this.totalChunks().then(
      (n) => ({ ok: true as const, n }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const limits = {
      deadlineAt: request.deadlineMs === undefined ? undefined : t0 + request.deadlineMs,
      signal: request.signal,
    };
    // Written by the vector side, which may still finish after a deadline dropped it.
    const sideTimes: { embed?: number } = {};
    const startVector = (): Promise<SideOutcome<VectorHit[]>> =>
      runSide(
        (signal) =>
          this.vectorSearch(plan.vector.text, plan.vector.depth, filter, signal, sideTimes),
        { ...limits, name: 'vector' },
      );
    // The vector side starts first: embedding runs off the main thread (onnxruntime's
    // pool, or an HTTP request) while the synchronous keyword query runs here.
    let vectorSide: Promise<SideOutcome<VectorHit[]> | null> = plan.vector.run
      ? startVector()
      : Promise.resolve(null);
    const keywordSide = runSide(
      () =>
        fetchAccepted(
          (n) =>
            this.index.keyword.search({
              terms: plan.keyword.terms.map((t) => ({ term: t.term, boost: t.weight })),
              limit: n,
              filter: filter.store,
            }),
          plan.keyword.depth,
          filter,
        ),
      { ...limits, name: 'keyword' },
    );
    const kw = await keywordSide;
    if (
      !plan.vector.run &&
      plan.vector.fallbackOnEmpty &&
      kw.ok &&
      kw.value.length === 0 &&
      this.vector.kind !== 'none'
    ) {
      // An identifier nobody wrote this way (a typo, another spelling): meaning is all that is left.
      plan = {
        ...plan,
        reasons: [...plan.reasons, 'vector: the keyword side found nothing, so it ran after all'],
      };
      vectorSide = startVector();
    }
    const vec = await vectorSide;
    timings.keyword = kw.ms;
    if (vec?.ok) {
      timings.embed = sideTimes.embed ?? 0;
      timings.vector = Math.max(0, vec.ms - timings.embed);
    }
    const keywordHits = kw.ok ? kw.value : null;
    const vectorHits = vec?.ok ? vec.value : null;
    if (!kw.ok) {
      // A damaged index is not a slow backend: say so instead of answering from half of it.
      if (isCodesiftError(kw.error) && kw.error.code === 'INDEX_CORRUPT') throw kw.error;
      degraded.push(`keyword: ${kw.reason}`);
    }
    if (vec && !vec.ok) degraded.push(`vector: ${vec.reason}`);
    if (keywordHits === null && vectorHits === null) {
      if (!kw.ok && kw.error === undefined) {
        throw new CodesiftError('TIMEOUT', `search missed its ${request.deadlineMs} ms deadline`, {
          hint: 'allow a longer deadline',
        });
      }
      if (!kw.ok && isCodesiftError(kw.error)) throw kw.error;
      throw new CodesiftError('INTERNAL', `search failed: ${degraded.join('; ')}`);
    }

    const tf = performance.now();
    const paths = new Map<string, string>();
    const keywordById = new Map<string, KeywordHit>();
    for (const h of keywordHits ?? []) {
      paths.set(h.id, h.path);
      keywordById.set(h.id, h);
    }
    for (const h of vectorHits ?? []) if (!paths.has(h.id)) paths.set(h.id, h.path);
    const fusedHits = fuse({
      keyword: keywordHits,
      vector: vectorHits,
      method: plan.fusion.combiner,
      k: plan.fusion.rrfK ?? undefined,
      vectorWeight: plan.fusion.vectorWeight ?? undefined,
    });
    timings.fuse = performance.now() - tf;

    const tb = performance.now();
    const byId = new Map<string, FusedHit>(fusedHits.map((f) => [f.id, f]));
    const candidates = fusedHits.map((f) => {
      const language = keywordById.get(f.id)?.language;
      return {
        id: f.id,
        path: paths.get(f.id)!,
        fused: f.fused,
        ...(language === undefined ? {} : { language }),
      };
    });
    let defs: Definition[] = [];
    if (plan.definitions.enabled) {
      try {
        defs = await this.definitions(plan.definitions.identifiers);
      } catch (err) {
        // Symbols may live in another service (the cluster's symbol service):
        // without them the answer loses the definition boost, not its results.
        degraded.push(`definitions: ${errorMessage(err)}`);
      }
    }
    const definitions = await this.holdingDefinitions(candidates, defs, keywordById);
    // Anchors are matched in the content of the best candidates; hydrate reuses what is read.
    const chunkCache = new Map<string, Chunk>();
    const contents = new Map<string, string>();
    if (plan.anchors.enabled && plan.anchors.list.length > 0 && candidates.length > 0) {
      const ids = candidates.slice(0, plan.boostDepth).map((c) => c.id);
      for (const c of await this.index.chunks.get(ids)) {
        chunkCache.set(c.id, c);
        contents.set(c.id, c.content);
      }
    }
    let ranked: Ranked[] = rescore({ plan, candidates, definitions, contents }).map((r) => ({
      ...byId.get(r.id)!,
      ...r,
    }));
    if (plan.collapseFiles) {
      ranked =
        plan.files.score === 'decayed'
          ? collapseDecayed(
              ranked,
              plan.files.decay,
              plan.files.maxChunks,
              (r) => r.fused * r.focusMultiplier,
            )
          : collapseByPath(ranked);
    }
    ranked = ranked.slice(0, plan.limit);
    timings.boosts = performance.now() - tb;

    const th = performance.now();
    const highlight = new Set(
      plan.keyword.terms.filter((t) => t.source !== 'synonym').map((t) => t.term),
    );
    const results = await this.hydrate(ranked, highlight, request.explain === true, chunkCache);
    timings.hydrate = performance.now() - th;
    const count = await counting;
    if (!count.ok) degraded.push(`count: ${errorMessage(count.error)}`);
    timings.total = performance.now() - t0;
    for (const k of Object.keys(timings)) timings[k] = round(timings[k]!);
    return {
      query,
      results,
      fusion: plan.fusion.combiner,
      timings,
      degraded,
      totalChunks: count.ok ? count.n : (this.chunkCount?.n ?? 0),
      ...(request.includePlan === false ? {} : { plan }),
    };
  }

  private async vectorSearch(
    text: string,
    limit: number,
    filter: CompiledFilter,
    signal: AbortSignal,
    times: { embed?: number },
  ): Promise<VectorHit[]> {
    const te = performance.now();
    const embedder = await this.queryEmbedder();
    // Its own span: the model (or Ollama) is most of a cold vector side.
    // The tracer is looked up per span, not at load: an SDK registered later
    // (through another copy of the API) is only found through the global.
    const span = trace.getTracer('@codesift/search').startSpan('search.embed', {
      attributes: { 'codesift.embedder': embedder.name },
    });
    let vector: Float32Array | undefined;
    try {
      [vector] = await embedder.embed([text], { signal });
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
      throw err;
    } finally {
      span.end();
    }
    times.embed = performance.now() - te;
    signal.throwIfAborted();
    const store: StoreFilter = filter.store;
    return fetchAccepted(
      (n) => this.index.vectors.search({ vector: vector!, limit: n, filter: store }),
      limit,
      filter,
    );
  }

  /** Where the symbols the query names (exactly, case-insensitively) are defined. */
  private async definitions(identifiers: readonly string[]): Promise<Definition[]> {
    const defs: Definition[] = [];
    for (const id of identifiers) {
      const needle = id.replaceAll('::', '.').toLowerCase();
      for (const s of await this.index.symbols.lookup(needle, { limit: 20 })) {
        if (s.name.toLowerCase() === needle || s.qualifiedName.toLowerCase() === needle) {
          defs.push({ path: s.path, startLine: s.startLine });
        }
      }
    }
    return defs;
  }

  /** Ids of candidates that hold one of the definitions. */
  private async holdingDefinitions(
    fused: readonly { id: string; path: string }[],
    defs: readonly Definition[],
    keywordById: ReadonlyMap<string, KeywordHit>,
  ): Promise<Set<string>> {
    const defPaths = new Set(defs.map((d) => d.path));
    const out = new Set<string>();
    // Vector hits carry no line range; read it for the few candidates in a defining file.
    const unknown: string[] = [];
    for (const f of fused) {
      if (!defPaths.has(f.path)) continue;
      const k = keywordById.get(f.id);
      if (k) {
        if (holdsDefinition(k, defs)) out.add(f.id);
      } else {
        unknown.push(f.id);
      }
    }
    if (unknown.length > 0) {
      for (const c of await this.index.chunks.get(unknown)) {
        if (holdsDefinition(c, defs)) out.add(c.id);
      }
    }
    return out;
  }

  private async queryEmbedder(): Promise<Embedder> {
    if (this.vector.kind === 'given') return this.vector.embedder;
    if (this.vector.kind === 'none') throw new Error('no embedder');
    const loaded = await this.vector.loading;
    if ('error' in loaded) throw loaded.error;
    return loaded;
  }

  private async hydrate(
    ranked: readonly Ranked[],
    terms: ReadonlySet<string>,
    explain: boolean,
    cache: ReadonlyMap<string, Chunk>,
  ): Promise<SearchResult[]> {
    if (ranked.length === 0) return [];
    const missing = ranked.filter((r) => !cache.has(r.id)).map((r) => r.id);
    const byId = new Map(cache);
    if (missing.length > 0) for (const c of await this.index.chunks.get(missing)) byId.set(c.id, c);
    const results: SearchResult[] = [];
    for (const f of ranked) {
      // A chunk removed by a concurrent re-index since the sides ran is skipped.
      const c = byId.get(f.id);
      if (!c) continue;
      const snippet = selectSnippet(c.content, c.startLine, terms);
      const r: SearchResult = {
        chunkId: c.id,
        path: c.path,
        startLine: c.startLine,
        endLine: c.endLine,
        symbol: c.symbol,
        kind: c.kind,
        language: c.language,
        score: f.score,
        snippet: snippet.text,
        snippetStartLine: snippet.startLine,
      };
      if (explain) {
        r.explain = {
          keyword: f.keyword,
          keywordRank: f.keywordRank,
          vector: f.vector,
          vectorRank: f.vectorRank,
          fused: f.score,
          base: f.fused,
          focusMultiplier: f.focusMultiplier,
        };
        if (f.definitionBoost > 0) r.explain.boost = f.definitionBoost;
        if (f.anchorBoost > 0) {
          r.explain.anchorBoost = f.anchorBoost;
          r.explain.anchors = f.anchorsMatched;
        }
      }
      results.push(r);
    }
    return results;
  }

  /** Counting walks the table (or asks a remote store), so it is cached until the index changes. */
  private async totalChunks(): Promise<number> {
    const at = (await this.index.meta()).updatedAt;
    if (this.chunkCount?.at !== at) this.chunkCount = { at, n: (await this.index.stats()).chunks };
    return this.chunkCount.n;
  }

  async lookupSymbol(
    name: string,
    options?: { kind?: string; limit?: number },
  ): Promise<SymbolInfo[]> {
    this.ensureOpen();
    if (typeof name !== 'string' || name.trim() === '') {
      throw new CodesiftError('INVALID_ARGUMENT', 'the symbol name is empty');
    }
    return this.index.symbols.lookup(name, options);
  }

  async vocabulary(options?: {
    prefix?: string;
    limit?: number;
  }): Promise<{ name: string; count: number }[]> {
    this.ensureOpen();
    return this.index.symbols.vocabulary(options);
  }

  async status(): Promise<IndexStatusInfo> {
    this.ensureOpen();
    const [meta, stats] = await Promise.all([this.index.meta(), this.index.stats()]);
    return {
      root: meta.root,
      repositories: Object.keys(meta.repositories ?? {}).sort(),
      indexPath: this.index.location,
      files: stats.files,
      chunks: stats.chunks,
      symbols: stats.symbols,
      vectors: stats.vectors,
      embedder: meta.embedder,
      dimensions: meta.dimensions,
      updatedAt: meta.updatedAt,
      bytes: stats.bytes,
    };
  }

  async getSnippet(file: string, startLine: number, endLine: number): Promise<Snippet> {
    this.ensureOpen();
    if (typeof file !== 'string' || file.trim() === '') {
      throw new CodesiftError('INVALID_ARGUMENT', 'the path is empty');
    }
    if (!Number.isFinite(startLine) || !Number.isFinite(endLine)) {
      throw new CodesiftError('INVALID_ARGUMENT', `invalid line range ${startLine}-${endLine}`);
    }
    const meta = await this.index.meta();
    const rel = path.posix.normalize(file.replaceAll('\\', '/')).replace(/^\.\/+/, '');
    // In an index of many repositories a path starts with its repository's name,
    // and the file lives in that repository's directory.
    const repos = meta.repositories ?? {};
    const inRepository = splitRepositoryPath(repos, rel);
    if (inRepository === null && Object.keys(repos).length > 0) {
      throw new CodesiftError('INVALID_ARGUMENT', `${rel} is in none of the index's repositories`, {
        hint: 'paths in this index start with their repository name; search or find_symbol gives valid paths',
      });
    }
    const root = inRepository ? inRepository.root : meta.root;
    if (root === null) {
      throw new CodesiftError(
        'INDEX_INCOMPATIBLE',
        `index ${this.index.location} records no root directory`,
        {
          hint: 're-run `codesift index <dir>` so the index records where its files live',
        },
      );
    }
    const abs = resolveInsideRoot(root, inRepository ? inRepository.path : rel);
    // Only files the indexer accepted are readable: this keeps .env, keys, .git
    // and anything ignored out of reach even though they sit inside the root.
    const record = await this.index.manifest.get(rel);
    if (!record) {
      throw new CodesiftError('INVALID_ARGUMENT', `${rel} is not an indexed file`, {
        hint: 'get_snippet reads files the index holds; search or find_symbol gives valid paths',
      });
    }
    let text: string;
    try {
      // A symlink inside the root may point outside it; the real path must stay inside too.
      const realRoot = realpathSync(root);
      const real = realpathSync(abs);
      resolveInsideRoot(realRoot, path.relative(realRoot, real));
      text = await readFile(real, 'utf8');
    } catch (err) {
      if (err instanceof CodesiftError) throw err;
      const code = (err as { code?: string }).code;
      if (code === 'ENOENT') {
        throw new CodesiftError('INVALID_ARGUMENT', `file not found: ${rel} (under ${root})`, {
          hint: 'the file may have been deleted or moved since indexing; re-run `codesift index`',
        });
      }
      if (code === 'EISDIR') throw new CodesiftError('INVALID_ARGUMENT', `${rel} is a directory`);
      throw new CodesiftError('UNREADABLE', `cannot read ${rel}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    const lines = text.split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const n = lines.length;
    const start = Math.min(Math.max(1, Math.floor(startLine)), n);
    let end = Math.min(Math.max(start, Math.floor(endLine)), n);
    end = Math.min(end, start + MAX_SNIPPET_LINES - 1);
    return {
      path: rel,
      startLine: start,
      endLine: end,
      language: record.language,
      text: lines.slice(start - 1, end).join('\n'),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.index.close();
    if (this.vector.kind === 'owned') {
      const loaded = await this.vector.loading;
      if (!('error' in loaded)) await loaded.close();
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new CodesiftError('INVALID_ARGUMENT', 'the search engine is closed');
  }
}
