/**
 * What every LLM call returns instead of throwing: callers decide per item
 * (a chunk, a query) whether to use the answer or fall back, and a summary
 * can count failures by kind.
 */
export type LlmFailure =
  /** No answer within the call's time limit (the request was aborted). */
  | 'timeout'
  /** Transport or server failure: refused, reset, HTTP 5xx, ... (after retries). */
  | 'error'
  /** An answer came but is unusable: not JSON, off-schema, too big. */
  | 'garbage'
  /** The circuit breaker is open: no request was sent. */
  | 'breaker-open'
  /** The server does not have the configured model. */
  | 'model-missing';

export type LlmOutcome<T> =
  | { ok: true; value: T; ms: number }
  | { ok: false; failure: LlmFailure; reason: string; ms: number };

export const LLM_FAILURES: readonly LlmFailure[] = [
  'timeout',
  'error',
  'garbage',
  'breaker-open',
  'model-missing',
];
