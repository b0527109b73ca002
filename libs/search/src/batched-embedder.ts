/**
 * One embedding call for many concurrent callers: the variants of a query
 * each run their own vector side, and each asks for its text's vector at
 * about the same moment. Those asks are collected until the event loop
 * turns (setImmediate) and sent as one embed([...]) batch, which costs a
 * model about what one text does, where N calls would cost N round trips
 * (an Ollama request each) or N inference runs.
 *
 * The batch is cancelled only when every caller in it has cancelled; a
 * caller that cancels alone gets its rejection at once.
 */
import type { Embedder, EmbedOptions } from '@codesift/models';
import type { QueryEmbedder } from './query-embedder.js';

interface Pending {
  texts: string[];
  signal: AbortSignal | undefined;
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: unknown) => void;
}

/** A query embedder whose embed() calls made in one turn of the event loop share one batch. */
export function batchedQueryEmbedder(inner: QueryEmbedder): QueryEmbedder {
  let batching: Promise<Embedder> | null = null;
  return {
    get() {
      batching ??= inner.get().then(batchingEmbedder);
      return batching;
    },
    // The inner embedder is the engine's; it closes it.
    close: async () => {},
  };
}

function batchingEmbedder(embedder: Embedder): Embedder {
  let queue: Pending[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    const texts = batch.flatMap((p) => p.texts);
    const controller = new AbortController();
    const signals = batch.map((p) => p.signal);
    // Cancel the shared call only when nobody in it still wants an answer.
    const onAbort = () => {
      if (signals.every((s) => s?.aborted)) controller.abort(signals[0]?.reason);
    };
    if (signals.every((s) => s !== undefined)) {
      for (const s of signals) s!.addEventListener('abort', onAbort, { once: true });
    }
    embedder.embed(texts, { signal: controller.signal }).then(
      (vectors) => {
        let at = 0;
        for (const p of batch) {
          p.resolve(vectors.slice(at, at + p.texts.length));
          at += p.texts.length;
        }
      },
      (err: unknown) => {
        for (const p of batch) p.reject(err);
      },
    );
  };
  return {
    name: embedder.name,
    dimensions: embedder.dimensions,
    maxBatch: embedder.maxBatch,
    embed(texts: string[], options: EmbedOptions = {}) {
      options.signal?.throwIfAborted();
      return new Promise<Float32Array[]>((resolve, reject) => {
        if (queue.length === 0) setImmediate(flush);
        queue.push({ texts, signal: options.signal, resolve, reject });
        options.signal?.addEventListener('abort', () => reject(options.signal!.reason), {
          once: true,
        });
      });
    },
    close: async () => {},
  };
}
