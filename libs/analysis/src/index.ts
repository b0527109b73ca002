// For users of the package: analyze text the same way at index and query
// time, and tell a file's language and whether it holds tests.

export { ANALYZER_VERSION, analyze, analyzeQuery } from './analyze.js';
export { isTestPath } from './focus/test-files.js';
export {
  checkedLanguage,
  detectLanguage,
  KNOWN_LANGUAGES,
  languagesForExtension,
  resolveLanguage,
} from './language.js';
export { wordStems } from './word-stems.js';

// For other libraries: the analyzer's limits and word lists, for stores that
// mirror the analyzer (MAX_TERM_LENGTH) and for @codesift/query, built on it.

export { MAX_QUERY_TERMS, MAX_TERM_LENGTH, STOPWORDS, splitIdentifier } from './analyze.js';
// The language table, for the packages that key their own per-language rules by its ids.
export { LANGUAGES, type LanguageEntry, type TestFileRules } from './languages.js';
