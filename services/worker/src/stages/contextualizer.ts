// contextualizer: a batch of FileChunks on `chunks` -> the same chunks with
// their context sentence on `contextualized`. Pattern mode only: the cluster
// does not run @codesift/context's LLM mode yet (local `codesift index
// --context llm` does); it would call llmChunkContext here per chunk.
import { createWorkFile, type WorkFile, type WorkMessage } from '@codesift/bus';
import { type Contextualizer, createPatternContextualizer } from '@codesift/context';
import { errorMessage } from '@codesift/core';
import type { FailedFile, StageDefinition, StageResult } from '@codesift/service-kit';
import { chunkFromWire } from '@codesift/wire';

/** Gives every chunk of the batch its context sentence. */
export async function contextualizeBatch(
  contextualizer: Contextualizer,
  batch: WorkMessage<'chunks'>,
): Promise<StageResult<'chunks'>> {
  const out: WorkFile<'contextualized'>[] = [];
  const failed: FailedFile<'chunks'>[] = [];
  for (const file of batch.files) {
    let contexts: string[];
    try {
      contexts = await contextualizer.contextualize(file.chunks.map(chunkFromWire));
    } catch (err) {
      // Pattern contexts are a pure function of the chunks: a file that
      // fails here fails every time. (An LLM mode must tell its transient
      // errors apart and throw those instead.)
      failed.push({ file, reason: `contextualize: ${errorMessage(err)}` });
      continue;
    }
    const chunks = file.chunks.map((c, i) => ({ ...c, context: contexts[i] ?? '' }));
    out.push(createWorkFile('contextualized', { ...file, chunks }));
  }
  return { failed, out: [{ queue: 'contextualized', files: out }] };
}

export const contextualizerStage: StageDefinition = {
  name: 'contextualizer',
  async init() {
    const contextualizer = createPatternContextualizer();
    return {
      bindings: [
        { queue: 'chunks', handler: (batch) => contextualizeBatch(contextualizer, batch) },
      ],
    };
  },
};
