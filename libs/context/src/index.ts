export {
  CONTEXT_CACHE_FILE,
  type ContextCache,
  contextCacheKey,
  openContextCache,
} from './context-cache.js';
export { type ContextRejection, rejectContext } from './context-check.js';
export { CONTEXT_PROMPT_VERSION, type FileOutline } from './context-prompt.js';
export { type ContextSummary, ContextTally, type TallyModel } from './context-tally.js';
export {
  applyContext,
  type ChunkContext,
  type ContextFallback,
  type ContextSource,
  type Contextualizer,
  createPatternContextualizer,
  embeddingText,
} from './contextualizer.js';
export {
  createLlmContextualizer,
  type LlmContextDeps,
  llmChunkContext,
} from './llm-contextualizer.js';
export { identifierWords, pathWords, patternContext } from './pattern.js';
