export {
  type Contextualizer,
  createPatternContextualizer,
  embeddingText,
} from './contextualizer.js';
export { identifierWords, pathWords, patternContext } from './pattern.js';
