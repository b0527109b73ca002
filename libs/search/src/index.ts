export { collapseByPath } from './collapse.js';
export { DEFAULT_LIMIT, type LocalEngineOptions, MAX_LIMIT, openLocalEngine } from './engine.js';
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
export { SNIPPET_MAX_LINES, type SnippetChoice, selectSnippet } from './snippet.js';
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
