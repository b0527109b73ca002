// contextualizer: a batch of FileChunks on `chunks` -> the same chunks with
// their context sentence on `contextualized`. Pattern mode; the LLM mode
// plugs in here once @codesift/context has it.
import { createWorkFile, type WorkFile } from '@codesift/bus';
import { createPatternContextualizer } from '@codesift/context';
import { errorMessage } from '@codesift/core';
import type { StageDefinition } from '@codesift/service-kit';
import { chunkFromWire } from '../convert.js';
import { byPath, publishFitted } from '../publish-batch.js';

export const contextualizerStage: StageDefinition = {
  name: 'contextualizer',
  async init({ js, nc }) {
    const contextualizer = createPatternContextualizer();
    return {
      bindings: [
        {
          queue: 'chunks',
          async handler(batch, ctx) {
            const out: WorkFile<'contextualized'>[] = [];
            for (const file of batch.files) {
              let contexts: string[];
              try {
                contexts = await contextualizer.contextualize(file.chunks.map(chunkFromWire));
              } catch (err) {
                // Pattern contexts are a pure function of the chunks: a file
                // that fails here fails every time. (An LLM mode must tell
                // its transient errors apart and throw those instead.)
                await ctx.fileFailed(file, `contextualize: ${errorMessage(err)}`);
                continue;
              }
              const chunks = file.chunks.map((c, i) => ({ ...c, context: contexts[i] ?? '' }));
              out.push(createWorkFile('contextualized', { ...file, chunks }));
            }
            await publishFitted(
              { js, nc, ctx, inputs: byPath(batch.files) },
              'contextualized',
              batch.jobId,
              out,
            );
          },
        },
      ],
    };
  },
};
