// For users of the package: parse a query string (after cutting pasted
// environment reports out of it) into the typed query.

export { type BoilerplateKind, stripBoilerplate } from './parse/boilerplate.js';
export { type CutLink, cutLinks, filePathOfLink, type LinksCut } from './parse/links.js';
export { type ParseContext, parseQuery } from './parse/parse.js';
export {
  isTemplatePath,
  MAX_TEMPLATE_FILES,
  TEMPLATE_PATH_HINTS,
  templateLines,
} from './parse/templates.js';
export type { OwnFrames } from './trace/block-node.js';
export { externalFramePaths } from './trace/trace.js';
export type { ParsedQuery, PhraseNode, QueryFilters, TermNode, TraceNode } from './types.js';

// For other libraries: the rewrites and inferences over the typed query that
// the search planner runs (keyword expansion, focus), and the tables that
// tune them.

export { DEFAULT_SYNONYMS } from './expand/default-synonyms.js';
export { type ExpandedTerm, type ExpansionSource, expandForKeywords } from './expand/expand.js';
export { mergeSynonymTables, type SynonymMergeMode, type SynonymTable } from './expand/synonyms.js';
export {
  type Focus,
  inferFocus,
  LONG_REPORT_CHARS,
  reportLeadEnd,
  TEST_WORDS,
} from './focus/infer-focus.js';
export { IDENTIFIER_SHAPES } from './parse/shape.js';
