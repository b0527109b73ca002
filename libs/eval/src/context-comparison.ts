import type { ContextSummary } from '@codesift/context';
import type { AggregateChunkScores, AggregateScores } from './metrics.js';

/**
 * `codesift eval --context llm`: every checkout indexed twice, with pattern
 * contexts and with the chat model's, both searched with the same engine
 * settings. This module sums up the difference.
 */

const FILE_METRICS = ['acc1', 'acc5', 'acc10', 'recall5', 'recall10', 'mrr10', 'ndcg10'] as const;
const CHUNK_METRICS = ['acc1', 'acc5', 'acc10', 'mrr10', 'precision10'] as const;

export interface ContextComparison {
  model: string;
  promptVersion: string;
  /** LLM-context index minus pattern-context index, overall. */
  deltas: {
    files: Record<(typeof FILE_METRICS)[number], number>;
    chunks: Record<(typeof CHUNK_METRICS)[number], number>;
  };
  /** Queries whose first relevant file ranks higher / lower / the same with LLM contexts. */
  queries: { better: number; worse: number; same: number };
  /** Context summaries of this run's indexing, summed over checkouts (cached indexes: as built). */
  indexes: { pattern: ContextSummary; llm: ContextSummary };
}

export function fileDeltas(
  llm: AggregateScores,
  pattern: AggregateScores,
): ContextComparison['deltas']['files'] {
  return deltas(FILE_METRICS, llm, pattern);
}

export function chunkDeltas(
  llm: AggregateChunkScores,
  pattern: AggregateChunkScores,
): ContextComparison['deltas']['chunks'] {
  return deltas(CHUNK_METRICS, llm, pattern);
}

function deltas<K extends string>(
  keys: readonly K[],
  a: Record<K, number>,
  b: Record<K, number>,
): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, round(a[k] - b[k])])) as Record<K, number>;
}

/** A miss (null) ranks below every hit. */
export function rankChange(
  pattern: number | null,
  llm: number | null,
): 'better' | 'worse' | 'same' {
  const p = pattern ?? Number.POSITIVE_INFINITY;
  const l = llm ?? Number.POSITIVE_INFINITY;
  return l < p ? 'better' : l > p ? 'worse' : 'same';
}

/** Sums the context summaries of several index runs (one per checkout). */
export function sumContextSummaries(
  mode: ContextSummary['mode'],
  model: string | null,
  parts: readonly (ContextSummary | undefined)[],
): ContextSummary {
  const total: ContextSummary = {
    mode,
    model,
    modelAnswered: null,
    calls: 0,
    cacheHits: 0,
    sources: { llm: 0, pattern: 0 },
    fallbacks: {},
  };
  for (const p of parts) {
    if (!p) continue;
    total.calls += p.calls;
    total.cacheHits += p.cacheHits;
    total.sources.llm += p.sources.llm;
    total.sources.pattern += p.sources.pattern;
    for (const [reason, n] of Object.entries(p.fallbacks) as [
      keyof ContextSummary['fallbacks'],
      number,
    ][]) {
      total.fallbacks[reason] = (total.fallbacks[reason] ?? 0) + n;
    }
    if (p.modelAnswered !== null) total.modelAnswered = total.modelAnswered || p.modelAnswered;
  }
  return total;
}

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}
