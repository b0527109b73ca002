/**
 * The retrieve step for a query with variants (planning/variants.ts): each
 * variant retrieves both sides as the query alone would (retrieval.ts), all
 * at once under the request's one deadline; the vector sides share one
 * embedding batch (batched-embedder.ts); each variant's sides are fused,
 * then the variants are merged per chunk (variant-merge.ts).
 *
 * The query's own retrieval decides success, as without variants: when it
 * fails the search fails the same way. A failed or late extra variant only
 * degrades the answer (`variant <kind>: ...` in `degraded`).
 */
import { errorMessage } from '@codesift/core';
import type { CompiledFilter } from './filters.js';
import { DEFAULT_RRF_K } from './fusion.js';
import type { PlannedVariant, QueryPlan } from './planning/types.js';
import { type Fused, fuseSides } from './ranking.js';
import { type RetrievalSources, type Retrieved, retrieve } from './retrieval.js';
import type { SideLimits } from './side-runner.js';
import { mergeVariants } from './variant-merge.js';

export interface VariantsRetrieved {
  /** The query's own retrieval, its degraded list extended with the variants'. */
  retrieved: Retrieved;
  /** The variants' fused lists merged per chunk. */
  fused: Fused;
  /** The plan with each variant's hits recorded. */
  plan: QueryPlan;
}

/** The plan one variant retrieves with: the query's plan with the variant's terms and vector text. */
export function variantPlan(plan: QueryPlan, v: PlannedVariant, primary: boolean): QueryPlan {
  if (primary) return plan;
  return {
    ...plan,
    keyword: { ...plan.keyword, terms: v.keyword },
    vector: { ...plan.vector, run: v.vector.run, text: v.vector.text, fallbackOnEmpty: false },
  };
}

export async function retrieveVariants(
  plan: QueryPlan,
  filter: CompiledFilter,
  sources: RetrievalSources,
  limits: Pick<SideLimits, 'deadlineAt' | 'signal'> & { deadlineMs?: number },
  /** The index's noise contrast, for fusion by contrast (ranking.ts fuseSides); asked only when a vector side answered. */
  noiseContrast: () => Promise<number | null> = async () => null,
): Promise<VariantsRetrieved> {
  const variants = plan.variants.list;
  const plans = variants.map((v, i) => variantPlan(plan, v, i === 0));
  // Every view's keyword side waits for the embedding request to leave, so that a model
  // answering off this thread computes during all of them (retrieval.ts).
  const viewLimits = { ...limits, afterEmbedRequest: plans.some((p) => p.vector.run) };
  const outcomes = await Promise.allSettled(
    plans.map((p) => retrieve(p, filter, sources, viewLimits)),
  );
  const first = outcomes[0]!;
  if (first.status === 'rejected') throw first.reason;
  const retrieved: Retrieved = { ...first.value, degraded: [...first.value.degraded] };
  const vectorAnswered = outcomes.some((o) => o.status === 'fulfilled' && o.value.vector !== null);
  const noise = vectorAnswered ? await noiseContrast() : null;
  const lists: { weight: number; fused: Fused }[] = [];
  const list = variants.map((v, i): PlannedVariant => {
    const outcome = outcomes[i]!;
    if (outcome.status === 'rejected') {
      retrieved.degraded.push(`variant ${v.kind}: ${errorMessage(outcome.reason)}`);
      return { ...v, hits: null };
    }
    if (i > 0)
      for (const d of outcome.value.degraded) retrieved.degraded.push(`variant ${v.kind}: ${d}`);
    const fused = fuseSides(plans[i]!, outcome.value, noise);
    lists.push({ weight: v.weight, fused });
    return { ...v, hits: fused.hits.length };
  });
  const fused = mergeVariants(lists, plan.variants.merge, plan.fusion.rrfK ?? DEFAULT_RRF_K);
  return { retrieved, fused, plan: { ...plan, variants: { ...plan.variants, list } } };
}
