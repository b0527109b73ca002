import type { StageDefinition } from '@codesift/service-kit';
import { chunkerStage } from './chunker.js';
import { contextualizerStage } from './contextualizer.js';
import { embedderStage } from './embedder.js';
import { symbolsStage } from './symbols.js';
import { writerStage } from './writer.js';

/** Every stage `codesift-worker <stage>` can run, by name. */
export const STAGES: Readonly<Record<string, StageDefinition>> = {
  chunker: chunkerStage,
  contextualizer: contextualizerStage,
  embedder: embedderStage,
  writer: writerStage,
  symbols: symbolsStage,
};

export { embedderFromEnv } from './embedder.js';
export { chunkerStage, contextualizerStage, embedderStage, symbolsStage, writerStage };
