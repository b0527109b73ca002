/**
 * The search engine: hybrid BM25 + vector search over a SearchIndex
 * (search-index.ts). openLocalEngine opens one SQLite file (see
 * @codesift/stores openSqliteIndex); openEngine takes any store set, e.g.
 * the cluster's Elasticsearch + Qdrant + symbol service
 * (@codesift/stores-cluster). Both run the same steps, each in a module of
 * its own, each returning its result and its timing:
 *
 * 1. plan: check the request (options.ts), parse and plan the query
 *    (planning/plan-query.ts): pure, every decision recorded in the plan,
 *    whether the LLM rewrite runs included (planning/rewrite-decision.ts);
 * 1b. rewrite: when the plan says so and a model is configured, the model's
 *    vocabulary terms join the keyword side (rewrite-step.ts); a query that
 *    finds nothing gets one attempt when its skip allows it;
 * 1c. bridge: when the plan says so (a natural-language query, the switch
 *    on) and the model added nothing, the identifiers the repository's own
 *    statistics relate to the query's words join the keyword side
 *    (bridge-step.ts);
 * 2. retrieve: keyword and vector sides in parallel under the deadline,
 *    a failed or late side dropped and reported (retrieval.ts); with query
 *    variants (planning/variants.ts), each variant retrieves so, all in
 *    parallel with one embedding batch, merged per chunk (variants-step.ts);
 * 2b. evidence: no results when none of the query's own terms is in the
 *    index and no vector hit clears the index's noise floor
 *    (min-evidence-step.ts, planning/min-evidence.ts);
 * 3. rank: fuse the sides, read what the boosts need (evidence.ts), apply
 *    definition and anchor boosts and focus, collapse to files (ranking.ts);
 * 4. hydrate: the top results from the chunk store, with snippets; the chunk
 *    list as units: whole definitions, touching hits merged (hydrate.ts, units.ts);
 *    each marked `stale` when its file changed since indexing (freshness.ts).
 *
 * getSnippet reads indexed files from the stores where they keep the text, else from disk (indexed-file.ts).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError, errorMessage, type SymbolInfo } from '@codesift/core';
import type { LlmClient } from '@codesift/llm';
import { externalFramePaths, type ParsedQuery } from '@codesift/query';
import { openSqliteIndex } from '@codesift/stores';
import { batchedQueryEmbedder } from './batched-embedder.js';
import { bridgeStep } from './bridge-step.js';
import { type Evidence, gatherEvidence } from './evidence.js';
import { cannotListFileSymbols } from './file-symbols.js';
import { type CompiledFilter, compileFilter } from './filters.js';
import { stalePaths } from './freshness.js';
import { hydrate, snippetTerms } from './hydrate.js';
import { readIndexedLines } from './indexed-file.js';
import { minEvidenceStep, startEvidenceCheck } from './min-evidence-step.js';
import { measureNoise, NoiseFloorCache, type NoiseProfile } from './noise-floor.js';
import {
  checkedQuery,
  checkSettings,
  type EngineSettings,
  llmClientFor,
  plannerConfigFor,
  planOptions,
  withRequestSynonyms,
} from './options.js';
import { PHRASINGS_CACHE_SIZE, PhrasingsCache, phrasingsStep } from './phrasings-step.js';
import { planQuery, planText, rewriteAndParse, withVariants } from './planning/plan-query.js';
import type { PlannerConfig, PlanOptions, QueryPlan, VariantsPlan } from './planning/types.js';
import type { VariantSources } from './planning/variants.js';
import { type QueryEmbedder, queryEmbedderFor } from './query-embedder.js';
import { type Fused, fuseSides, type Ranked, rank } from './ranking.js';
import { ownFrames, type PathsByName, readPathsByName } from './repo-frames.js';
import { readTemplateLines } from './repo-templates.js';
import { mentionsTestWord, readOwnTestWords } from './repo-test-words.js';
import { type Retrieved, retrievalReasons, retrieve } from './retrieval.js';
import { rewriteBudget, rewriteStep } from './rewrite-step.js';
import { localSearchIndex, type SearchIndex } from './search-index.js';
import type {
  IndexStatusInfo,
  SearchEngine,
  SearchRequest,
  SearchResponse,
  SearchResult,
  Snippet,
} from './types.js';
import { retrieveVariants } from './variants-step.js';
import { listVocabulary, type VocabularyRequest } from './vocabulary.js';

export type { EngineSettings } from './options.js';

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

const INDEX_HINT = 'run `codesift index <dir>` to build it, or pass the index path';

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
  // Every page checked once per file state: damage no query reaches is still an error.
  const index = openSqliteIndex(indexPath, { readonly: true, verify: true });
  try {
    return await createEngine(localSearchIndex(index, indexPath), options, true);
  } catch (err) {
    index.close();
    throw err;
  }
}

/**
 * The engine over any store set (see SearchIndex): the cluster's query
 * service opens its stores (@codesift/stores-cluster openSearchIndexFromEnv)
 * and searches them exactly as the local engine searches SQLite, except
 * that it does not compare hits with the files on disk (freshness.ts): a
 * cluster's files live on its scanners' disks, not the query service's.
 */
export async function openEngine(options: EngineOptions): Promise<SearchEngine> {
  checkSettings(options);
  return createEngine(options.index, options, false);
}

async function createEngine(
  index: SearchIndex,
  options: EngineSettings,
  checkFreshness: boolean,
): Promise<SearchEngine> {
  const meta = await index.meta();
  const planner = plannerConfigFor(meta.root, options);
  const embedder = queryEmbedderFor(
    meta,
    index.location,
    options.embedder,
    options.env ?? process.env,
    { preload: options.preloadModel, longTextWorker: options.longTextWorker },
  );
  // A server is ready once its model is, as before loading became lazy:
  // queries arriving during the load would otherwise wait behind it. A load
  // that fails is reported by the searches that need it.
  if (options.preloadModel && embedder) await embedder.get().catch(() => undefined);
  const llm = await llmClientFor(meta.root, options);
  return new Engine(index, embedder, planner, llm, checkFreshness);
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

/** A step's result and the milliseconds it took. */
interface Timed<T> {
  value: T;
  ms: number;
}

async function timed<T>(step: () => T | Promise<T>): Promise<Timed<T>> {
  const t = performance.now();
  const value = await step();
  return { value, ms: performance.now() - t };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** What the planner reads from the indexed repository (PlannerConfig). */
type RepoFacts = Pick<PlannerConfig, 'templateLines' | 'ownTestWords' | 'ownFrames'>;

/** The plan step's result: the plan and its compiled filter. */
interface Planned {
  parsed: ParsedQuery;
  plan: QueryPlan;
  filter: CompiledFilter;
  /** parse (from the request's arrival, checks included) and plan. */
  timings: { parse: number; plan: number };
}

class Engine implements SearchEngine {
  private closed = false;
  private chunkCount: { at: number; n: number } | null = null;
  /** What the repository tells the planner, for the index version `at` (repoFacts). */
  private repo:
    | (RepoFacts & { at: number; templateLines: ReadonlySet<string>; byName?: PathsByName })
    | null = null;
  /** The model's phrasings per (index version, question, count). */
  private readonly phrasings = new PhrasingsCache(PHRASINGS_CACHE_SIZE);
  /** The vector similarity text without meaning reaches here, per index version (noise-floor.ts). */
  private readonly noiseFloor = new NoiseFloorCache();
  /** The embedder as the variants share it: their texts in one batch (batched-embedder.ts). */
  private readonly batchedEmbedder: QueryEmbedder | null;

  constructor(
    private readonly index: SearchIndex,
    private readonly embedder: QueryEmbedder | null,
    private readonly planner: PlannerConfig,
    private readonly llm: LlmClient | null,
    /** Mark hits and snippets whose file changed on disk since it was indexed (freshness.ts). */
    private readonly checkFreshness: boolean,
  ) {
    this.batchedEmbedder = embedder === null ? null : batchedQueryEmbedder(embedder);
  }

  /**
   * The steps in order (see the top of this file), each over the previous
   * one's result; none changes an earlier one's. The response's timings and
   * `degraded` are the steps' own, concatenated in order.
   */
  async search(request: SearchRequest): Promise<SearchResponse> {
    const t0 = performance.now();
    this.ensureOpen();
    const query = checkedQuery(request);
    const options = {
      ...planOptions(request, this.embedder !== null),
      llmModel: this.llm?.model ?? null,
    };
    request.signal?.throwIfAborted();
    const deadline =
      request.deadlineMs === undefined
        ? undefined
        : { at: t0 + request.deadlineMs, ms: request.deadlineMs };

    // 1. plan (with what the repository tells: its issue templates as boilerplate, its own
    // test words), then 1b. the LLM rewrite when the plan decided so.
    const repo = await this.repoFacts(query);
    const planned = this.planStep(query, options, request, t0, repo);
    const { parsed, filter } = planned;
    let plan = planned.plan;
    const degradedRewrite: string[] = [];
    let rewriteMs: number | undefined;
    const rewriteOnce = async (retry: boolean) => {
      const step = await timed(() =>
        rewriteStep(
          plan,
          parsed,
          { llm: this.llm!, symbols: this.index.symbols },
          { budgetMs: rewriteBudget(deadline, performance.now()), retry },
        ),
      );
      plan = step.value.plan;
      degradedRewrite.push(...step.value.degraded);
      rewriteMs = (rewriteMs ?? 0) + step.ms;
    };
    // The model's phrasings (query variants) are asked for beside the rewrite, not after it.
    let viewSources: VariantSources = {};
    const phrasing = this.phrasingsFor(plan, parsed, deadline);
    if (this.llm !== null && plan.llmRewrite.decision === 'run') await rewriteOnce(false);
    if (phrasing !== null) {
      const p = await phrasing;
      degradedRewrite.push(...p.degraded);
      viewSources = { phrasings: p.phrasings };
      plan = withVariants(plan, parsed, options, this.configFor(request, repo), viewSources);
      const note = p.plan?.fallback
        ? `llm phrasings: fell back, ${p.plan.fallback}`
        : `llm phrasings: ${p.phrasings.length} from ${p.plan?.model}${p.plan?.cached ? ' (cached)' : ''}`;
      plan = {
        ...plan,
        variants: { ...plan.variants, phrasings: p.plan },
        reasons: [...plan.reasons, note],
      };
    }
    // 1c. the offline bridge: its identifiers join the query's own terms. They are
    // searched there only, not again as a view of their own (which cost a
    // retrieval and a merge for the same identifiers).
    const degradedBridge: string[] = [];
    let bridgeMs: number | undefined;
    if (plan.bridge.decision === 'run') {
      const step = await timed(() => bridgeStep(plan, parsed, this.index));
      plan = step.value.plan;
      degradedBridge.push(...step.value.degraded);
      bridgeMs = step.ms;
      if (plan.bridge.terms.length > 0) {
        // The query's own view is planned again, with the bridged terms.
        plan = withVariants(plan, parsed, options, this.configFor(request, repo), viewSources);
      }
    }
    // Runs beside the sides (a remote index answers over the network); a failure only
    // degrades the count, like a failed side degrades the answer.
    const counting = this.totalChunks().then(
      (n) => ({ ok: true as const, n }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    // 2. retrieve: the query alone, or each of its variants in parallel, merged per chunk.
    const retrieveFor = async (): Promise<{ retrieved: Retrieved; fused: Timed<Fused> }> => {
      const limits = {
        deadlineAt: deadline?.at,
        deadlineMs: request.deadlineMs,
        signal: request.signal,
      };
      if (plan.variants.list.length > 1) {
        // The rewrite's terms are the query's own now: the query's view is planned again.
        if (plan.llmRewrite.terms.length > 0) {
          plan = withVariants(plan, parsed, options, this.configFor(request, repo), viewSources);
        }
        const sources = { index: this.index, embedder: this.batchedEmbedder };
        const tv = performance.now();
        const v = await retrieveVariants(plan, filter, sources, limits, noiseContrast);
        plan = v.plan;
        return { retrieved: v.retrieved, fused: { value: v.fused, ms: performance.now() - tv } };
      }
      const retrieved = await retrieve(
        plan,
        filter,
        { index: this.index, embedder: this.embedder },
        limits,
      );
      const noise = retrieved.vector === null ? null : await noiseContrast();
      return { retrieved, fused: await timed(() => fuseSides(plan, retrieved, noise)) };
    };
    // Asked only once a vector side answered (a dropped one must not wait for the model);
    // measured once per index version.
    const noiseContrast = () =>
      plan.fusion.contrast ? this.noiseContrast() : Promise.resolve(null);
    // Whether the query's own terms are in the index is asked beside retrieval.
    let ownIndexed = startEvidenceCheck(plan, this.index.keyword);
    let { retrieved, fused } = await retrieveFor();
    if (fused.value.hits.length === 0 && this.llm !== null && plan.llmRewrite.retryOnEmpty) {
      // A skipped short query that found nothing: one rewrite attempt, then retrieve again.
      await rewriteOnce(true);
      if (plan.llmRewrite.terms.length > 0) {
        ownIndexed = startEvidenceCheck(plan, this.index.keyword);
        ({ retrieved, fused } = await retrieveFor());
      }
    }
    // 2b. minimum evidence: nothing rather than the best of what parts and synonyms matched.
    const judged = await timed(() =>
      this.evidenceStep(plan, fused.value, ownIndexed, retrieved.keyword !== null),
    );
    plan = judged.value.plan;
    fused = { value: judged.value.fused, ms: fused.ms + judged.ms };
    // 3. rank, then 4. hydrate.
    const ranked = await timed(() => this.rankStep(plan, fused.value));
    // Hydration includes the freshness check: both read what the results show.
    const results = await timed(async () => {
      const hydrated = await hydrate(
        this.index.chunks,
        ranked.value.ranked,
        snippetTerms(plan),
        request.explain === true,
        ranked.value.evidence.chunks,
        plan.collapseFiles ? null : { symbols: this.index.symbols, limit: plan.limit },
      );
      await this.markStale(hydrated);
      return hydrated;
    });
    const count = await counting;

    const timings: Record<string, number> = {
      ...planned.timings,
      ...(rewriteMs === undefined ? {} : { rewrite: rewriteMs }),
      ...(bridgeMs === undefined ? {} : { bridge: bridgeMs }),
      ...retrieved.timings,
      fuse: fused.ms,
      boosts: ranked.ms,
      hydrate: results.ms,
      total: performance.now() - t0,
    };
    for (const k of Object.keys(timings)) timings[k] = round(timings[k]!);
    const degraded = [
      ...degradedRewrite,
      ...degradedBridge,
      ...retrieved.degraded,
      ...ranked.value.evidence.degraded,
      ...(count.ok ? [] : [`count: ${errorMessage(count.error)}`]),
    ];
    return {
      query,
      results: results.value,
      fusion: plan.fusion.combiner,
      timings,
      degraded,
      totalChunks: count.ok ? count.n : (this.chunkCount?.n ?? 0),
      ...(request.includePlan === false
        ? {}
        : { plan: withOutcomes(plan, retrieved, ranked.value.evidence.reasons) }),
    };
  }

  /** The planner's settings for one request: its synonyms and what the repository tells. */
  private configFor(request: SearchRequest, repo: RepoFacts): PlannerConfig {
    return { ...withRequestSynonyms(this.planner, request), ...repo };
  }

  /**
   * The phrasings step, started, when the plan wants the model's phrasings
   * as variants (a model, a question the rewrite decision sends, room in the
   * count, the kind allowed); null otherwise.
   */
  private phrasingsFor(
    plan: QueryPlan,
    parsed: ParsedQuery,
    deadline: { at: number; ms: number } | undefined,
  ): Promise<{ phrasings: string[]; degraded: string[]; plan: VariantsPlan['phrasings'] }> | null {
    const v = plan.variants;
    const llm = this.llm;
    if (llm === null || plan.llmRewrite.decision !== 'run') return null;
    if (v.requested < 2 || !v.kinds.includes('phrasing')) return null;
    const started = performance.now();
    return (async () => {
      const indexVersion = (await this.index.meta()).updatedAt;
      const p = await phrasingsStep(
        parsed.text,
        v.requested - 1,
        { llm, cache: this.phrasings, indexVersion },
        rewriteBudget(deadline, performance.now()),
      );
      const ms = Math.round(performance.now() - started);
      return {
        phrasings: p.phrasings,
        degraded: p.degraded,
        plan: { model: llm.model, ms, cached: p.cached, fallback: p.fallback },
      };
    })();
  }

  /** Parse (after the boilerplate rewrite, when on) and plan: pure, no I/O. */
  private planStep(
    query: string,
    options: PlanOptions,
    request: SearchRequest,
    t0: number,
    repo: RepoFacts,
  ): Planned {
    const config = this.configFor(request, repo);
    const { parsed, rewrite } = rewriteAndParse(query, options, config);
    const tp = performance.now();
    const plan = planQuery(parsed, options, config, rewrite);
    const filter = compileFilter(plan.filter);
    return { parsed, plan, filter, timings: { parse: tp - t0, plan: performance.now() - tp } };
  }

  /** The minimum-evidence rule over the fused hits (min-evidence-step.ts), with this index's noise floor. */
  private evidenceStep(
    plan: QueryPlan,
    fused: Fused,
    ownIndexed: Promise<boolean> | null,
    keywordAnswered: boolean,
  ): Promise<{ plan: QueryPlan; fused: Fused }> {
    const noiseFloor =
      this.embedder === null ? null : async () => (await this.noiseProfile())?.floor ?? null;
    return minEvidenceStep(plan, fused, { ownIndexed, keywordAnswered, noiseFloor });
  }

  /** What random letter strings get from this index's vector side (noise-floor.ts), once per version. */
  private async noiseProfile(): Promise<NoiseProfile | null> {
    const embedder = this.embedder;
    if (embedder === null) return null;
    const at = (await this.index.meta()).updatedAt;
    return this.noiseFloor.get(at, async () =>
      measureNoise(await embedder.get(), this.index.vectors),
    );
  }

  /** The noise's contrast for fusion; null (no scaling) when it cannot be measured. */
  private noiseContrast(): Promise<number | null> {
    return this.noiseProfile().then(
      (p) => p?.contrast ?? null,
      () => null,
    );
  }

  /** Reads what the boosts need, then ranks (ranking.ts is pure). */
  private async rankStep(
    plan: QueryPlan,
    fused: Fused,
  ): Promise<{ ranked: Ranked[]; evidence: Evidence }> {
    const evidence = await gatherEvidence(this.index, plan, fused);
    return { ranked: rank(plan, fused, evidence), evidence };
  }

  /**
   * What the planner reads from the repository itself, each read again only
   * when the index changes: the issue templates' lines (repo-templates.ts)
   * and, for a query holding a test word, the test words its paths use for
   * its own code (repo-test-words.ts); for a trace with frames in installed
   * copies, those naming its own files (repo-frames.ts). Listing the paths
   * is not free on a large index, so other queries skip it.
   */
  private async repoFacts(query: string): Promise<RepoFacts> {
    const at = (await this.index.meta()).updatedAt;
    if (this.repo?.at !== at)
      this.repo = { at, templateLines: await readTemplateLines(this.index) };
    const repo = this.repo;
    const facts: RepoFacts = { templateLines: repo.templateLines };
    if (mentionsTestWord(query)) {
      repo.ownTestWords ??= await readOwnTestWords(this.index);
      facts.ownTestWords = repo.ownTestWords;
    }
    const installed = externalFramePaths(query);
    if (installed.length > 0) {
      repo.byName ??= await readPathsByName(this.index);
      facts.ownFrames = ownFrames(installed, repo.byName);
    }
    return facts;
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

  async fileSymbols(file: string): Promise<SymbolInfo[]> {
    this.ensureOpen();
    const inFile = this.index.symbols.inFile;
    if (!inFile) throw cannotListFileSymbols();
    return inFile.call(this.index.symbols, file);
  }

  async vocabulary(options?: VocabularyRequest): Promise<{ name: string; count: number }[]> {
    this.ensureOpen();
    return listVocabulary(this.index.symbols, options);
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
    // It checks the file against the index itself, in every mode: serving a
    // changed file is a matter of safety, not only of freshness.
    return readIndexedLines(this.index, file, startLine, endLine);
  }

  /** Sets `stale` on the results whose file changed since it was indexed. */
  private async markStale(results: SearchResult[]): Promise<void> {
    if (!this.checkFreshness || results.length === 0) return;
    const stale = await stalePaths(
      this.index,
      results.map((r) => r.path),
    );
    for (const r of results) if (stale.has(r.path)) r.stale = true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.index.close();
    await this.embedder?.close();
  }

  private ensureOpen(): void {
    if (this.closed) throw new CodesiftError('INVALID_ARGUMENT', 'the search engine is closed');
  }
}

/** The plan as the response reports it: its reasons, then what the steps decided while running. */
function withOutcomes(plan: QueryPlan, retrieved: Retrieved, evidence: string[]): QueryPlan {
  const more = [...retrievalReasons(retrieved), ...evidence];
  return more.length === 0 ? plan : { ...plan, reasons: [...plan.reasons, ...more] };
}
