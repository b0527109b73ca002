// The contextualizer's LLM client with each chat call's latency recorded
// (codesift.llm.duration, by model and outcome). The outcome's own `ms`
// is the call as the client timed it, retries included.
import type { ChatJsonRequest, LlmClient, LlmOutcome } from '@codesift/llm';
import { codesiftMetrics } from '@codesift/telemetry';

export function timedLlmClient(client: LlmClient): LlmClient {
  return {
    model: client.model,
    host: client.host,
    async chatJson<T>(request: ChatJsonRequest): Promise<LlmOutcome<T>> {
      const outcome = await client.chatJson<T>(request);
      codesiftMetrics().llmDuration.record(outcome.ms / 1000, {
        model: client.model,
        outcome: outcome.ok ? 'ok' : outcome.failure,
      });
      return outcome;
    },
    stats: () => client.stats(),
  };
}
