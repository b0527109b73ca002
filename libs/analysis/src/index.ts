export {
  ANALYZER_VERSION,
  analyze,
  analyzeQuery,
  MAX_QUERY_TERMS,
  MAX_TERM_LENGTH,
  STOPWORDS,
  splitIdentifier,
} from './analyze.js';
export { detectLanguage } from './language.js';
