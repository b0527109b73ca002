export {
  ANALYZER_VERSION,
  analyze,
  analyzeQuery,
  MAX_QUERY_TERMS,
  MAX_TERM_LENGTH,
  STOPWORDS,
  splitIdentifier,
} from './analyze.js';
export { DEFAULT_SYNONYMS } from './expansion/default-synonyms.js';
export {
  EXPANSION_WEIGHTS,
  type ExpandedTerm,
  type ExpansionSource,
  type ExpansionWeights,
  expandForKeywords,
  NON_EXPANDABLE,
} from './expansion/expand.js';
export {
  mergeSynonymTables,
  type SynonymMergeMode,
  type SynonymTable,
} from './expansion/synonyms.js';
export {
  type Focus,
  type FocusResult,
  IMPLEMENTATION_WORDS,
  type InferFocusOptions,
  inferFocus,
  LONG_REPORT_CHARS,
  TEST_WORDS,
} from './focus/infer-focus.js';
export {
  isTestPath,
  TEST_DIRECTORIES,
  TEST_DIRECTORY_SUFFIXES,
  TEST_FILE_RULES,
  type TestFileRules,
} from './focus/test-files.js';
export { detectLanguage } from './language.js';
export {
  type BoilerplateBlock,
  type BoilerplateKind,
  findBoilerplate,
  insideBoilerplate,
  MIN_VERSION_LINES,
  MIN_VERSION_SHARE,
  type StrippedQuery,
  stripBoilerplate,
} from './query/boilerplate.js';
export { parseQuery } from './query/parse.js';
export { type Classified, classifyToken, IDENTIFIER_SHAPES } from './query/shape.js';
export {
  computeSpecificity,
  FILLER_COUNT,
  PHRASE_MIN_WEIGHT,
  SHAPE_WEIGHTS,
  type SpecificityResult,
} from './query/specificity.js';
export { normalizeLanguage } from './query/tokenize.js';
export type {
  FilterField,
  FilterNode,
  ParsedQuery,
  PhraseNode,
  QueryFilters,
  QueryNode,
  StackFrame,
  TermNode,
  TermShape,
  TraceError,
  TraceFormat,
  TraceNode,
  TraceRole,
} from './query/types.js';
export { FILLER_WORDS, isFillerWord } from './query/words.js';
