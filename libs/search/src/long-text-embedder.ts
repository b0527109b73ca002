/**
 * The built-in model for a long-lived engine: short texts on the calling
 * thread, long ones (pasted reports) in a model worker thread.
 *
 * onnxruntime-node runs a session synchronously on the thread that calls
 * it, and so does the keyword side's SQLite work. A long report's search
 * runs several keyword views and one model pass over up to 128 tokens; on
 * one thread they add up. From a worker the model computes while the
 * keyword side holds this thread (retrieval.ts sends the request first). A
 * short question costs the model a few milliseconds, where the hop between
 * threads would take a share and win little, so it stays here.
 *
 * The worker starts on the first long text, in the background (that text
 * runs here): an engine that never sees one never pays for a second session
 * (~70 MB), and one that does pays the start once, off its searches. A
 * worker that fails to start or dies leaves every text on this thread. The
 * vectors are the same either way: one session, one thread count or
 * another, gives identical floats (checked in long-text-embedder.test.ts).
 */
import type { Embedder, EmbedOptions } from '@codesift/models';

/**
 * Texts of at least this many characters go to the worker. The model reads
 * at most 128 tokens and costs ~0.9 ms plus ~0.17 ms a word on one thread:
 * at 256 characters (~40 tokens) its pass is ~8 ms, about what a long
 * question's keyword side takes, so the overlap pays; shorter ones stay.
 */
export const LONG_TEXT_CHARS = 256;

export interface LongTextOptions {
  /** Starts the worker embedder (the same model, in a worker thread). */
  startWorker: () => Promise<Embedder>;
  /** Texts of at least this many characters go to the worker (default LONG_TEXT_CHARS). */
  minChars?: number;
}

/** `inline` for short texts, a worker started on the first long text for long ones. */
export function longTextsInWorker(inline: Embedder, options: LongTextOptions): Embedder {
  const minChars = options.minChars ?? LONG_TEXT_CHARS;
  let worker: Embedder | null = null;
  /** undefined: not started; settles to the worker, or null when it failed. */
  let starting: Promise<Embedder | null> | undefined;
  let closed = false;
  const start = () => {
    // After close() nothing would close it.
    if (closed) return;
    starting ??= options.startWorker().then(
      (w) => {
        worker = w;
        return w;
      },
      () => null,
    );
  };
  return {
    name: inline.name,
    dimensions: inline.dimensions,
    maxBatch: inline.maxBatch,
    async embed(texts: string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      if (!texts.some((t) => t.length >= minChars)) return inline.embed(texts, embedOptions);
      if (worker === null) {
        start();
        return inline.embed(texts, embedOptions);
      }
      const w = worker;
      try {
        return await w.embed(texts, embedOptions);
      } catch (err) {
        if (embedOptions?.signal?.aborted) throw err;
        // The worker died (or failed this batch): this thread answers from now on.
        if (worker === w) worker = null;
        starting = Promise.resolve(null);
        void w.close().catch(() => {});
        return inline.embed(texts, embedOptions);
      }
    },
    async close(): Promise<void> {
      closed = true;
      // A worker still starting is waited for, then closed.
      const w = worker ?? (await starting) ?? null;
      worker = null;
      await Promise.all([inline.close(), w?.close()]);
    },
  };
}
