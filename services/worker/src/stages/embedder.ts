// embedder: FileChunks on `contextualized` -> the same with one vector per
// chunk and the embedder's name on `embedded`. Which model is an environment
// choice (see embedderFromEnv); `none` passes chunks through for a
// keyword-only index; `fixed:<ms>` is a benchmark stand-in (see
// ../fixed-embedder.ts).
import { publish } from '@codesift/bus';
import { embeddingText } from '@codesift/context';
import { createBuiltinEmbedder, createEmbedderFromEnv, type Embedder } from '@codesift/models';
import type { StageDefinition } from '@codesift/service-kit';
import { chunkFromWire, vectorToWire } from '../convert.js';
import { createFixedCostEmbedder, parseFixedEmbedderChoice } from '../fixed-embedder.js';

/**
 * CODESIFT_EMBEDDER: `none` (no vectors), `builtin` (the offline model), or
 * unset/`auto`: Ollama when OLLAMA_HOST is set, else builtin. `fixed:<ms>` is
 * for benchmarks only: <ms> of wall time per chunk, one batch at a time per
 * process (a simulated GPU), meaningless hash vectors.
 */
export async function embedderFromEnv(env: NodeJS.ProcessEnv): Promise<Embedder | null> {
  const choice = env.CODESIFT_EMBEDDER?.trim().toLowerCase() || 'auto';
  switch (choice) {
    case 'none':
      return null;
    case 'builtin':
      return createBuiltinEmbedder();
    case 'auto':
      return createEmbedderFromEnv(env);
    default: {
      const ms = parseFixedEmbedderChoice(choice);
      if (ms !== undefined) return createFixedCostEmbedder(ms);
      throw new Error(
        `CODESIFT_EMBEDDER must be none, builtin, auto or fixed:<ms> (benchmarks), not '${choice}'`,
      );
    }
  }
}

export const embedderStage: StageDefinition = {
  name: 'embedder',
  async init({ js, log, env }) {
    const embedder = await embedderFromEnv(env);
    log.info('embedder ready', { embedder: embedder?.name ?? 'none' });
    return {
      bindings: [
        {
          queue: 'contextualized',
          async handler(file, ctx) {
            if (!embedder || file.chunks.length === 0) {
              await publish(js, 'embedded', file, { traceparent: ctx.trace });
              return;
            }
            const texts = file.chunks.map((c) => embeddingText(chunkFromWire(c)));
            const vectors = [];
            for (let i = 0; i < texts.length; i += embedder.maxBatch) {
              vectors.push(...(await embedder.embed(texts.slice(i, i + embedder.maxBatch))));
              // A large file may take longer than the ack deadline to embed.
              ctx.working();
            }
            await publish(
              js,
              'embedded',
              { ...file, vectors: vectors.map(vectorToWire), embedder: embedder.name },
              { traceparent: ctx.trace },
            );
          },
        },
      ],
      close: () => embedder?.close(),
    };
  },
};
