// A benchmark stand-in for a model on a GPU: CODESIFT_EMBEDDER=fixed:<ms>.
// Each chunk costs <ms> of wall time (a timer, not CPU), and one process
// embeds one batch at a time, like a replica that owns one accelerator; the
// vectors are unit vectors derived from a hash of the text, so they are
// deterministic but carry no meaning. For measuring the pipeline and its
// scale-out only: never for an index anyone searches.
import { createHash } from 'node:crypto';
import type { Embedder, EmbedOptions } from '@codesift/models';

export const FIXED_EMBEDDER_DIMENSIONS = 64;
const FIXED_MAX_BATCH = 32;

/** `fixed:<ms>` -> ms per chunk; undefined when `choice` is not of that form. */
export function parseFixedEmbedderChoice(choice: string): number | undefined {
  const m = /^fixed:(\d+(?:\.\d+)?)$/.exec(choice.trim().toLowerCase());
  return m ? Number(m[1]) : undefined;
}

function hashVector(text: string, dims: number): Float32Array {
  const v = new Float32Array(dims);
  let filled = 0;
  for (let block = 0; filled < dims; block++) {
    const digest = createHash('sha256').update(`${block}\0`).update(text).digest();
    for (let i = 0; i + 1 < digest.length && filled < dims; i += 2) {
      // Two bytes -> a value in [-1, 1).
      v[filled++] = digest.readUInt16LE(i) / 32768 - 1;
    }
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dims; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * An embedder that takes `msPerChunk` × batch size per embed() call, one call
 * at a time per instance (concurrent calls queue), and returns 64-d unit
 * vectors from a SHA-256 of each text.
 */
export function createFixedCostEmbedder(msPerChunk: number): Embedder {
  if (!Number.isFinite(msPerChunk) || msPerChunk < 0) {
    throw new Error(`fixed embedder: ms per chunk must be a number >= 0, not ${msPerChunk}`);
  }
  // One "device" per process: calls run in order, never overlapping.
  let tail: Promise<unknown> = Promise.resolve();
  return {
    name: `fixed:${msPerChunk}ms-${FIXED_EMBEDDER_DIMENSIONS}d`,
    dimensions: FIXED_EMBEDDER_DIMENSIONS,
    maxBatch: FIXED_MAX_BATCH,
    embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
      const job = async () => {
        await sleep(msPerChunk * texts.length, options?.signal);
        return texts.map((t) => hashVector(t, FIXED_EMBEDDER_DIMENSIONS));
      };
      const result = tail.then(job, job);
      tail = result.catch(() => undefined);
      return result;
    },
    async close() {
      await tail.catch(() => undefined);
    },
  };
}
