export { type BreakerState, CircuitBreaker } from './breaker.js';
export {
  type ChatJsonRequest,
  createLlmClient,
  type JsonSchema,
  type LlmClient,
  type LlmStats,
  OLLAMA_STRUCTURED_OUTPUT_SINCE,
} from './client.js';
export {
  type ContextMode,
  DEFAULT_OLLAMA_HOST,
  LLM_DEFAULTS,
  type LlmConfig,
  type LlmFileSettings,
  readLlmFileSettings,
  readRepositoryLlmSettings,
  resolveLlmConfig,
  validateLlmSection,
} from './config.js';
export { LLM_FAILURES, type LlmFailure, type LlmOutcome } from './outcome.js';
