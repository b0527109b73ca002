export { collapseByPath, collapseDecayed } from './collapse.js';
export {
  DEFAULT_LIMIT,
  type EngineOptions,
  type EngineSettings,
  type LocalEngineOptions,
  MAX_LIMIT,
  openEngine,
  openLocalEngine,
  planSearch,
} from './engine.js';
export { type CompiledFilter, compileFilter } from './filters.js';
export {
  DEFAULT_RRF_K,
  DEFAULT_VECTOR_WEIGHT,
  type FusedHit,
  type FuseInput,
  fuse,
  minMaxNormalize,
  type SideHit,
} from './fusion.js';
export { highlightTerms, queryTerms } from './highlight.js';
export {
  ANCHOR_BOOST_SHARE,
  type AnchorMatch,
  type AnchorMatcher,
  compileAnchor,
  MAX_ANCHORS,
  matchAnchors,
  planAnchors,
} from './planning/anchors.js';
export {
  DEFAULT_DOC_MULTIPLIER,
  DEFAULT_FOCUS_MULTIPLIER,
  DOC_WORDS,
  focusMultiplier,
  isProsePath,
  PROSE_EXTENSIONS,
} from './planning/focus.js';
export { adaptiveVectorWeight } from './planning/fusion-weights.js';
export {
  DEFAULT_FILE_DECAY,
  DEFAULT_PLANNER_CONFIG,
  FILE_SCORE_CHUNKS,
  NO_PLANNING,
  planQuery,
  planText,
} from './planning/plan-query.js';
export { type Candidate, type Rescored, rescore } from './planning/rescore.js';
export type {
  AnchorKind,
  FileScoreMode,
  Focus,
  FusionMode,
  PlannedAnchor,
  PlannedTerm,
  PlannerConfig,
  PlanOptions,
  QueryPlan,
} from './planning/types.js';
export { EMBED_MAX_CHARS, vectorText } from './planning/vector-text.js';
export {
  CONFIG_FILES,
  findConfigFile,
  plannerConfigFrom,
  readSearchConfig,
  type SearchConfig,
  validateSearchConfig,
} from './search-config.js';
export { localSearchIndex, type SearchIndex } from './search-index.js';
export { SNIPPET_MAX_LINES, type SnippetChoice, selectSnippet } from './snippet.js';
export { type SwappableEngine, swappableEngine } from './swappable-engine.js';
export type {
  FusionMethod,
  IndexStatusInfo,
  ScoreExplain,
  SearchEngine,
  SearchFilter,
  SearchRequest,
  SearchResponse,
  SearchResult,
  Snippet,
} from './types.js';
