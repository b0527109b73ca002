/**
 * Retrieval: the keyword and vector sides of one plan, in parallel, each
 * over-fetching candidates under the request's deadline (see
 * side-runner.ts). A failed or late side is dropped and reported; the
 * plan's fallback (an identifier-only query whose keyword side found
 * nothing embeds after all) is an outcome of this step, not a change of
 * the plan.
 */
import { CodesiftError, errorMessage, isCodesiftError } from '@codesift/core';
import type { KeywordHit, VectorHit } from '@codesift/stores';
import type { CompiledFilter } from './filters.js';
import { MAX_CANDIDATES } from './planning/plan-query.js';
import type { QueryPlan } from './planning/types.js';
import type { QueryEmbedder } from './query-embedder.js';
import type { SearchIndex } from './search-index.js';
import { runSide, type SideLimits } from './side-runner.js';
import { tracingApi } from './tracing.js';

/** What a retrieval searches: the stores, and the query embedder (null: keyword only). */
export interface RetrievalSources {
  index: SearchIndex;
  embedder: QueryEmbedder | null;
}

export interface Retrieved {
  /** null: the side failed or missed the deadline (see `degraded`). */
  keyword: KeywordHit[] | null;
  /** null: the side did not run, failed or missed the deadline. */
  vector: VectorHit[] | null;
  /** The vector side ran although the plan skipped it, because the keyword side found nothing. */
  vectorFallback: boolean;
  /** Sides dropped, e.g. 'vector: timeout'. */
  degraded: string[];
  /** Milliseconds: keyword; embed and vector when the vector side answered. */
  timings: Record<string, number>;
}

/** Said in the response's plan reasons when the fallback ran. */
export const VECTOR_FALLBACK_REASON = 'vector: the keyword side found nothing, so it ran after all';

/**
 * Runs both sides of `plan`. Throws when neither answers: TIMEOUT at the
 * deadline, the keyword side's own error (INDEX_CORRUPT at once, even when
 * the vector side answered: a damaged index is not a slow backend), or
 * INTERNAL.
 */
export async function retrieve(
  plan: QueryPlan,
  filter: CompiledFilter,
  sources: RetrievalSources,
  limits: Pick<SideLimits, 'deadlineAt' | 'signal'> & {
    deadlineMs?: number;
    /**
     * Another view of the same query embeds: its request leaves before this
     * keyword side starts too (retrieveVariants), or the views' keyword sides
     * would all run before it.
     */
    afterEmbedRequest?: boolean;
  },
): Promise<Retrieved> {
  const { index, embedder } = sources;
  const sideLimits = { deadlineAt: limits.deadlineAt, signal: limits.signal };
  const startVector = () =>
    runSide(
      (signal) => vectorSearch(sources, plan.vector.text, plan.vector.depth, filter, signal),
      { ...sideLimits, name: 'vector' },
    );
  // The vector side starts first: embedding runs off the main thread (onnxruntime's
  // pool, or an HTTP request) while the synchronous keyword query runs here.
  let vectorSide = plan.vector.run ? startVector() : Promise.resolve(null);
  if (plan.vector.run || limits.afterEmbedRequest) await embedRequestSent();
  const kw = await runSide(
    () =>
      fetchAccepted(
        (n) =>
          index.keyword.search({
            terms: plan.keyword.terms.map((t) => ({ term: t.term, boost: t.weight })),
            limit: n,
            filter: filter.store,
          }),
        plan.keyword.depth,
        filter,
      ),
    { ...sideLimits, name: 'keyword' },
  );
  // An identifier nobody wrote this way (a typo, another spelling): meaning is all that is left.
  const vectorFallback =
    !plan.vector.run &&
    plan.vector.fallbackOnEmpty &&
    kw.ok &&
    kw.value.length === 0 &&
    embedder !== null;
  if (vectorFallback) vectorSide = startVector();
  const vec = await vectorSide;

  const timings: Record<string, number> = { keyword: kw.ms };
  if (vec?.ok) {
    timings.embed = vec.value.embedMs;
    timings.vector = Math.max(0, vec.ms - vec.value.embedMs);
  }
  const degraded: string[] = [];
  if (!kw.ok) {
    if (isCodesiftError(kw.error) && kw.error.code === 'INDEX_CORRUPT') throw kw.error;
    degraded.push(`keyword: ${kw.reason}`);
  }
  if (vec && !vec.ok) {
    // A damaged index is an error on either side, never a half answer.
    if (isCodesiftError(vec.error) && vec.error.code === 'INDEX_CORRUPT') throw vec.error;
    degraded.push(`vector: ${vec.reason}`);
  }
  const keyword = kw.ok ? kw.value : null;
  const vector = vec?.ok ? vec.value.hits : null;
  if (keyword === null && vector === null) {
    if (!kw.ok && kw.error === undefined) {
      throw new CodesiftError('TIMEOUT', `search missed its ${limits.deadlineMs} ms deadline`, {
        hint: 'allow a longer deadline',
      });
    }
    if (!kw.ok && isCodesiftError(kw.error)) throw kw.error;
    throw new CodesiftError('INTERNAL', `search failed: ${degraded.join('; ')}`);
  }
  return { keyword, vector, vectorFallback, degraded, timings };
}

/**
 * Resolves once the vector side's embedding request has left. The request
 * leaves when the batching embedder flushes (batched-embedder.ts: at
 * setImmediate, so that the variants' texts of one turn share a batch), and
 * the keyword side's SQLite work is synchronous: started at once, it held the
 * thread to its end before the model's worker or Ollama had the text, and a
 * search took the two sides' sum instead of the longer one (a long report at
 * 100k chunks: keyword ~28 ms, then embedding ~16 ms). The first turn lets
 * the vector side's awaits reach embed() and queue the flush behind it; an
 * immediate queued while immediates run waits for the next turn, so the
 * second runs after the flush. An embedder still loading (a cold start) sends
 * nothing yet; the keyword side does not wait for it.
 */
async function embedRequestSent(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** What retrieval decided while it ran, worded like the plan's own reasons. */
export function retrievalReasons(retrieved: Retrieved): string[] {
  return retrieved.vectorFallback ? [VECTOR_FALLBACK_REASON] : [];
}

async function vectorSearch(
  sources: RetrievalSources,
  text: string,
  limit: number,
  filter: CompiledFilter,
  signal: AbortSignal,
): Promise<{ hits: VectorHit[]; embedMs: number }> {
  const te = performance.now();
  if (sources.embedder === null) throw new Error('no embedder');
  const embedder = await sources.embedder.get();
  // Its own span: the model (or Ollama) is most of a cold vector side.
  // The tracer is looked up per span, not at load: an SDK registered later
  // (through another copy of the API) is only found through the global.
  const api = tracingApi();
  const span = api?.trace
    .getTracer('@codesift/search')
    .startSpan('search.embed', { attributes: { 'codesift.embedder': embedder.name } });
  let vector: Float32Array | undefined;
  try {
    [vector] = await embedder.embed([text], { signal });
  } catch (err) {
    if (api) span?.setStatus({ code: api.SpanStatusCode.ERROR, message: errorMessage(err) });
    throw err;
  } finally {
    span?.end();
  }
  const embedMs = performance.now() - te;
  signal.throwIfAborted();
  const hits = await fetchAccepted(
    (n) => sources.index.vectors.search({ vector: vector!, limit: n, filter: filter.store }),
    limit,
    filter,
  );
  return { hits, embedMs };
}

/** Fetches `want` hits that pass the filter's globs, asking the store for more while they reject too many. */
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
