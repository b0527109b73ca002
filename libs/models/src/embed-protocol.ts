import type { WireError } from '@codesift/core';

/** Messages between the main thread and the embedding worker (embed-worker.ts). */

/** workerData of the embedding worker: the in-thread embedder's options. */
export interface EmbedWorkerInit {
  threads?: number;
  batchSize?: number;
}

export type ToEmbedWorker =
  | { type: 'embed'; id: number; texts: string[] }
  /** Release the session and let the thread end once every embed has answered. */
  | { type: 'close' };

export type FromEmbedWorker =
  | { type: 'ready'; maxBatch: number }
  | { type: 'load-failed'; error: WireError }
  | { type: 'vectors'; id: number; vectors: Float32Array[] }
  | { type: 'embed-failed'; id: number; error: WireError };
