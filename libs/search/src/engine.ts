/**
 * The local search engine: hybrid BM25 + vector search over one SQLite
 * index (see @codesift/stores openSqliteIndex).
 *
 * One search:
 * 1. analyze the query with the indexing analyzer (BM25 terms);
 * 2. in parallel, keyword search with those terms, and embed the user's raw
 *    words then vector search; each side over-fetches candidates and runs
 *    under the deadline (a failed or late side is dropped and reported);
 * 3. fuse (RRF or linear, see fusion.ts), apply globs the stores could not,
 *    optionally collapse to one hit per file;
 * 4. hydrate the top results from the chunk store with a focused snippet.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { analyzeQuery, detectLanguage } from '@codesift/analysis';
import {
  CodesiftError,
  errorMessage,
  isCodesiftError,
  resolveInsideRoot,
  type SymbolInfo,
} from '@codesift/core';
import type { Embedder } from '@codesift/models';
import {
  type KeywordHit,
  type LocalIndex,
  openSqliteIndex,
  type SearchFilter as StoreFilter,
  type VectorHit,
} from '@codesift/stores';
import { collapseByPath } from './collapse.js';
import { type Definition, holdsDefinition, queryIdentifiers } from './definitions.js';
import { embedderForIndex } from './embedder-for-index.js';
import { type CompiledFilter, compileFilter } from './filters.js';
import { DEFAULT_RRF_K, DEFAULT_VECTOR_WEIGHT, type FusedHit, fuse } from './fusion.js';
import { runSide, type SideOutcome } from './side-runner.js';
import { selectSnippet } from './snippet.js';
import type {
  FusionMethod,
  IndexStatusInfo,
  SearchEngine,
  SearchRequest,
  SearchResponse,
  SearchResult,
  Snippet,
} from './types.js';

export interface LocalEngineOptions {
  indexPath: string;
  /**
   * The query embedder. undefined: recreate the one the index was built with
   * (builtin, or Ollama via env OLLAMA_HOST when the index says
   * 'ollama:<model>'); null: keyword only. A given embedder stays the
   * caller's to close.
   */
  embedder?: Embedder | null;
  env?: NodeJS.ProcessEnv;
  fusion?: FusionMethod;
  vectorWeight?: number;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
/** Candidates per side: enough depth for fusion to reorder, cheap for the stores. */
const MIN_CANDIDATES = 50;
const CANDIDATES_PER_RESULT = 5;
/** Most candidates one side fetches when post-filtering or collapsing needs more. */
const MAX_CANDIDATES = 4000;
/**
 * The vector side embeds at most this much of the query. The built-in model
 * reads only its first 128 tokens anyway, and an Ollama model's context is
 * bounded; a pasted 20 KB log should not become a 20 KB request.
 */
const MAX_EMBED_CHARS = 8000;
/**
 * Bonus for a chunk that defines a symbol the query names: the largest
 * score any chunk can get from fusion (1 for linear, both sides at rank 1
 * for RRF), so a definition ranks above every chunk that only uses the
 * name, and definitions keep their fused order among themselves.
 */
const DEFINITION_BOOST_LINEAR = 1;
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
  const fusion = options.fusion ?? 'linear';
  checkFusion(fusion);
  const vectorWeight = options.vectorWeight ?? DEFAULT_VECTOR_WEIGHT;
  checkWeight(vectorWeight);
  const index = openSqliteIndex(indexPath, { readonly: true });
  try {
    const meta = index.meta();
    let vector: VectorState = { kind: 'none' };
    if (meta.embedder !== null && meta.dimensions !== null && options.embedder !== null) {
      if (options.embedder) {
        if (
          options.embedder.name !== meta.embedder ||
          options.embedder.dimensions !== meta.dimensions
        ) {
          throw new CodesiftError(
            'INDEX_INCOMPATIBLE',
            `index ${indexPath} was embedded with ${meta.embedder} (${meta.dimensions}-d), not ${options.embedder.name} (${options.embedder.dimensions}-d)`,
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
    return new LocalEngine(index, indexPath, vector, fusion, vectorWeight);
  } catch (err) {
    index.close();
    throw err;
  }
}

function checkFusion(f: unknown): asserts f is FusionMethod {
  if (f !== 'rrf' && f !== 'linear') {
    throw new CodesiftError('INVALID_ARGUMENT', `unknown fusion ${JSON.stringify(f)}`, {
      hint: "use 'rrf' or 'linear'",
    });
  }
}

function checkWeight(w: number): void {
  if (!(typeof w === 'number' && w >= 0 && w <= 1)) {
    throw new CodesiftError('INVALID_ARGUMENT', `vectorWeight must be within 0..1, got ${w}`);
  }
}

function normalizeLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isFinite(limit) || limit < 1) {
    throw new CodesiftError('INVALID_ARGUMENT', `limit must be a positive number, got ${limit}`);
  }
  return Math.min(MAX_LIMIT, Math.floor(limit));
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

class LocalEngine implements SearchEngine {
  private closed = false;
  private chunkCount: { at: number; n: number } | null = null;

  constructor(
    private readonly index: LocalIndex,
    private readonly indexPath: string,
    private readonly vector: VectorState,
    private readonly fusion: FusionMethod,
    private readonly vectorWeight: number,
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
    const limit = normalizeLimit(request.limit);
    const fusion = request.fusion ?? this.fusion;
    checkFusion(fusion);
    const vectorWeight = request.vectorWeight ?? this.vectorWeight;
    checkWeight(vectorWeight);
    const rrfK = request.rrfK ?? DEFAULT_RRF_K;
    if (!(rrfK > 0))
      throw new CodesiftError('INVALID_ARGUMENT', `rrfK must be positive, got ${rrfK}`);
    if (request.deadlineMs !== undefined && !(request.deadlineMs > 0)) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `deadlineMs must be positive, got ${request.deadlineMs}`,
      );
    }
    const filter = compileFilter(request.filter);
    request.signal?.throwIfAborted();

    const timings: Record<string, number> = {};
    const degraded: string[] = [];
    const terms = analyzeQuery(query);
    timings.analyze = performance.now() - t0;

    // Collapsing keeps one hit per file, so it needs candidates from more files.
    const perSide = Math.min(
      MAX_CANDIDATES,
      Math.max(limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES) * (request.collapseFiles ? 3 : 1),
    );
    const limits = {
      deadlineAt: request.deadlineMs === undefined ? undefined : t0 + request.deadlineMs,
      signal: request.signal,
    };
    // Written by the vector side, which may still finish after a deadline dropped it.
    const sideTimes: { embed?: number } = {};
    const runVector = !request.keywordOnly && this.vector.kind !== 'none';
    // The vector side starts first: embedding runs off the main thread (onnxruntime's
    // pool, or an HTTP request) while the synchronous keyword query runs here.
    const vectorSide: Promise<SideOutcome<VectorHit[]> | null> = runVector
      ? runSide((signal) => this.vectorSearch(query, perSide, filter, signal, sideTimes), limits)
      : Promise.resolve(null);
    const keywordSide = runSide(
      () =>
        fetchAccepted(
          (n) =>
            this.index.keyword.search({
              terms: terms.map((term) => ({ term })),
              limit: n,
              filter: filter.store,
            }),
          perSide,
          filter,
        ),
      limits,
    );
    const [kw, vec] = await Promise.all([keywordSide, vectorSide]);
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
    for (const h of vectorHits ?? []) paths.set(h.id, h.path);
    let fused: (FusedHit & { path: string; boost?: number })[] = fuse({
      keyword: keywordHits,
      vector: vectorHits,
      method: fusion,
      k: rrfK,
      vectorWeight,
    }).map((f) => ({ ...f, path: paths.get(f.id)! }));
    const defs = await this.definitions(query);
    if (defs.length > 0) {
      const boost = fusion === 'rrf' ? 2 / (rrfK + 1) : DEFINITION_BOOST_LINEAR;
      const boosted = await this.holdingDefinitions(fused, defs, keywordById);
      if (boosted.size > 0) {
        for (const f of fused) {
          if (!boosted.has(f.id)) continue;
          f.fused += boost;
          f.boost = boost;
        }
        // A definition whose own fused score is 0 ties a best-of-both-sides hit: it still wins.
        fused.sort((a, b) => b.fused - a.fused || Number(b.boost ?? 0) - Number(a.boost ?? 0));
      }
    }
    if (request.collapseFiles) fused = collapseByPath(fused);
    fused = fused.slice(0, limit);
    timings.fuse = performance.now() - tf;

    const th = performance.now();
    const results = await this.hydrate(fused, new Set(terms), request.explain === true);
    timings.hydrate = performance.now() - th;
    timings.total = performance.now() - t0;
    for (const k of Object.keys(timings)) timings[k] = round(timings[k]!);
    return {
      query,
      results,
      fusion,
      timings,
      degraded,
      totalChunks: this.totalChunks(),
    };
  }

  private async vectorSearch(
    query: string,
    limit: number,
    filter: CompiledFilter,
    signal: AbortSignal,
    times: { embed?: number },
  ): Promise<VectorHit[]> {
    const te = performance.now();
    const embedder = await this.queryEmbedder();
    const text = query.length > MAX_EMBED_CHARS ? query.slice(0, MAX_EMBED_CHARS) : query;
    const [vector] = await embedder.embed([text], { signal });
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
  private async definitions(query: string): Promise<Definition[]> {
    const defs: Definition[] = [];
    for (const id of queryIdentifiers(query)) {
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
    fused: (FusedHit & { path: string; boost?: number })[],
    terms: ReadonlySet<string>,
    explain: boolean,
  ): Promise<SearchResult[]> {
    if (fused.length === 0) return [];
    const chunks = await this.index.chunks.get(fused.map((f) => f.id));
    const byId = new Map(chunks.map((c) => [c.id, c]));
    const results: SearchResult[] = [];
    for (const f of fused) {
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
        score: f.fused,
        snippet: snippet.text,
        snippetStartLine: snippet.startLine,
      };
      if (explain) {
        r.explain = {
          keyword: f.keyword,
          keywordRank: f.keywordRank,
          vector: f.vector,
          vectorRank: f.vectorRank,
          fused: f.fused,
        };
        if (f.boost !== undefined) r.explain.boost = f.boost;
      }
      results.push(r);
    }
    return results;
  }

  /** count(*) walks the table, so it is cached until the index changes. */
  private totalChunks(): number {
    const at = this.index.meta().updatedAt;
    if (this.chunkCount?.at !== at) this.chunkCount = { at, n: this.index.stats().chunks };
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
    const meta = this.index.meta();
    const stats = this.index.stats();
    return {
      root: meta.root,
      indexPath: this.indexPath,
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
    const root = this.index.meta().root;
    if (root === null) {
      throw new CodesiftError(
        'INDEX_INCOMPATIBLE',
        `index ${this.indexPath} records no root directory`,
        {
          hint: 're-run `codesift index <dir>` so the index records where its files live',
        },
      );
    }
    const rel = path.posix.normalize(file.replaceAll('\\', '/')).replace(/^\.\/+/, '');
    const abs = resolveInsideRoot(root, rel);
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
    this.index.close();
    if (this.vector.kind === 'owned') {
      const loaded = await this.vector.loading;
      if (!('error' in loaded)) await loaded.close();
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new CodesiftError('INVALID_ARGUMENT', 'the search engine is closed');
  }
}
