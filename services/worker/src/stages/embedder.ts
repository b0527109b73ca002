// embedder: a batch of FileChunks on `contextualized` -> the same with one
// vector per chunk and the embedder's name on `embedded`. Which model is an
// environment choice (see embedderFromEnv); `none` passes chunks through for
// a keyword-only index; `fixed:<ms>` is a benchmark stand-in (see
// ../fixed-embedder.ts).
import { createWorkFile, type WorkMessage } from '@codesift/bus';
import { embeddingText } from '@codesift/context';
import {
  createBuiltinEmbedderFromEnv,
  createEmbedderFromEnv,
  type Embedder,
} from '@codesift/models';
import type { StageDefinition, StageResult } from '@codesift/service-kit';
import { codesiftMetrics, secondsSince } from '@codesift/telemetry';
import { chunkFromWire, vectorToWire } from '@codesift/wire';
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
      // CODESIFT_EMBED_THREADS: its share of the node's cores (its CPU limit).
      return createBuiltinEmbedderFromEnv(env);
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

/**
 * Batches one embedder process works on at once. The model is the
 * bottleneck and embeds one call at a time, so a batch taken while another
 * is being embedded would only wait here while other replicas idle: at the
 * end of a job that imbalance is what limits scale-out. Decoding and
 * publishing are short next to embedding, so nothing is gained by overlap.
 */
const EMBEDDER_IN_FLIGHT = 1;

/**
 * Embeds every chunk of the batch; without an embedder (`none`) the files
 * pass through unchanged. `working` is called after each model call: a
 * large batch may take longer than the ack deadline to embed.
 */
export async function embedBatch(
  embedder: Embedder | null,
  batch: WorkMessage<'contextualized'>,
  working: () => void = () => undefined,
): Promise<StageResult<'contextualized'>> {
  if (!embedder) return { out: [{ queue: 'embedded', files: batch.files }] };
  // Every chunk of the batch in one list, embedded in groups of the
  // model's preferred size: fewer, fuller calls than file by file.
  const texts = batch.files.flatMap((f) => f.chunks.map((c) => embeddingText(chunkFromWire(c))));
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += embedder.maxBatch) {
    const started = performance.now();
    vectors.push(...(await embedder.embed(texts.slice(i, i + embedder.maxBatch))));
    codesiftMetrics().embedDuration.record(secondsSince(started), {
      use: 'index',
      embedder: embedder.name,
    });
    working();
  }
  if (vectors.length !== texts.length) {
    throw new Error(`${embedder.name}: ${vectors.length} vectors for ${texts.length} texts`);
  }
  let next = 0;
  const embedded = batch.files.map((f) => {
    const own = vectors.slice(next, next + f.chunks.length);
    next += f.chunks.length;
    return createWorkFile('embedded', {
      ...f,
      vectors: own.map(vectorToWire),
      embedder: own.length > 0 ? embedder.name : '',
    });
  });
  // Vectors make the files much larger (512 floats = 2 KiB per chunk):
  // runStage splits the batch to stay under the message limit.
  return { out: [{ queue: 'embedded', files: embedded }] };
}

export const embedderStage: StageDefinition = {
  name: 'embedder',
  async init({ log, env }) {
    const embedder = await embedderFromEnv(env);
    log.info('embedder ready', { embedder: embedder?.name ?? 'none' });
    return {
      bindings: [
        {
          queue: 'contextualized',
          maxInFlight: embedder ? EMBEDDER_IN_FLIGHT : undefined,
          handler: (batch, ctx) => embedBatch(embedder, batch, () => ctx.working()),
        },
      ],
      close: () => embedder?.close(),
    };
  },
};
