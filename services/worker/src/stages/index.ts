import type { StageDefinition } from '@codesift/service-kit';
import { chunkerStage } from './chunker.js';
import { contextualizerStage } from './contextualizer.js';
import { embedderStage } from './embedder.js';
import { scannerStage } from './scanner.js';
import { symbolsStage } from './symbols.js';
import { writerStage } from './writer.js';

/** Every stage `codesift-worker <stage>` can run, by name, in pipeline order. */
export const STAGES: Readonly<Record<string, StageDefinition>> = {
  scanner: scannerStage,
  chunker: chunkerStage,
  contextualizer: contextualizerStage,
  embedder: embedderStage,
  writer: writerStage,
  symbols: symbolsStage,
};

export { embedderFromEnv } from './embedder.js';
export { resolveJobRoot } from './scanner.js';
export {
  chunkerStage,
  contextualizerStage,
  embedderStage,
  scannerStage,
  symbolsStage,
  writerStage,
};
