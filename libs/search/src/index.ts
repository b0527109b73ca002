// For users of the package: open an engine over an index and search it.
// For other libraries: stores of their own to search (@codesift/stores-cluster),
// and the planner alone, without an index (the e2e tests, benchmarks);
// the offline bridge's terms for a text (query variants).
export type { BridgeTerm } from './bridge-score.js';
export {
  type BridgeOptions,
  type BridgeOutcome,
  type BridgeSources,
  bridgeTerms,
} from './bridge-step.js';
export {
  type EngineOptions,
  type EngineSettings,
  type LocalEngineOptions,
  openEngine,
  openLocalEngine,
  planSearch,
} from './engine.js';
export { fileSymbolsOf } from './file-symbols.js';
export { highlightTerms, queryTerms } from './highlight.js';
export { noEvidenceExplanation } from './planning/min-evidence.js';
export type { FusionMode, QueryPlan } from './planning/types.js';
export { plannerConfigFrom } from './search-config.js';
export { localSearchIndex, type SearchIndex } from './search-index.js';
export { type SwappableEngine, swappableEngine } from './swappable-engine.js';
export type {
  IndexStatusInfo,
  SearchEngine,
  SearchRequest,
  SearchResponse,
  SearchResult,
  Snippet,
} from './types.js';
export { listVocabulary, type VocabularyRequest } from './vocabulary.js';
