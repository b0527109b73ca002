import type { LlmClient } from '@codesift/llm';
import type { ChunkContext, ContextFallback, ContextSource } from './contextualizer.js';

/** How the contexts of one index run came about; `codesift index --json` prints it. */
export interface ContextSummary {
  mode: 'pattern' | 'llm';
  /** The chat model (LLM mode), else null. */
  model: string | null;
  /** true: at least one call answered; false: calls were made, none answered; null: no call made. */
  modelAnswered: boolean | null;
  /** Model calls made (cache hits and breaker refusals make none). */
  calls: number;
  /** LLM contexts reused from the cache. */
  cacheHits: number;
  /** Chunks by where their context came from. */
  sources: Record<ContextSource, number>;
  /** LLM mode: chunks that fell back to the pattern context, by reason. */
  fallbacks: Partial<Record<ContextFallback, number>>;
}

/**
 * The model side of a tally: the client, or just the model's name for an
 * LLM-mode run that had nothing to ask (no client was made).
 */
export type TallyModel = Pick<LlmClient, 'model'> & Partial<Pick<LlmClient, 'stats'>>;

/** Counts chunk contexts as a run produces them. */
export class ContextTally {
  private readonly sources: Record<ContextSource, number> = { llm: 0, pattern: 0 };
  private readonly fallbacks: Partial<Record<ContextFallback, number>> = {};
  private cacheHits = 0;
  private readonly startCalls: number;
  private readonly startOk: number;

  constructor(private readonly client?: TallyModel) {
    this.startCalls = client?.stats?.().calls ?? 0;
    this.startOk = client?.stats?.().ok ?? 0;
  }

  add(contexts: readonly ChunkContext[]): void {
    for (const c of contexts) {
      this.sources[c.source]++;
      if (c.cached) this.cacheHits++;
      if (c.fallback) this.fallbacks[c.fallback] = (this.fallbacks[c.fallback] ?? 0) + 1;
    }
  }

  summary(): ContextSummary {
    const stats = this.client?.stats?.();
    const calls = (stats?.calls ?? 0) - this.startCalls;
    const answered = (stats?.ok ?? 0) - this.startOk;
    return {
      mode: this.client ? 'llm' : 'pattern',
      model: this.client?.model ?? null,
      modelAnswered: calls === 0 ? null : answered > 0,
      calls,
      cacheHits: this.cacheHits,
      sources: { ...this.sources },
      fallbacks: { ...this.fallbacks },
    };
  }
}
