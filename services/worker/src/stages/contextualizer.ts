// contextualizer: FileChunks on `chunks` -> the same chunks with their
// context sentence on `contextualized`. Pattern mode; the LLM mode plugs in
// here once @codesift/context has it.
import { publish } from '@codesift/bus';
import { createPatternContextualizer } from '@codesift/context';
import type { StageDefinition } from '@codesift/service-kit';
import { chunkFromWire } from '../convert.js';

export const contextualizerStage: StageDefinition = {
  name: 'contextualizer',
  async init({ js }) {
    const contextualizer = createPatternContextualizer();
    return {
      bindings: [
        {
          queue: 'chunks',
          async handler(file, ctx) {
            const contexts = await contextualizer.contextualize(file.chunks.map(chunkFromWire));
            const chunks = file.chunks.map((c, i) => ({ ...c, context: contexts[i] ?? '' }));
            await publish(js, 'contextualized', { ...file, chunks }, { traceparent: ctx.trace });
          },
        },
      ],
    };
  },
};
