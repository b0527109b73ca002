/** A text embedding model. Vectors are L2-normalised, one per input, same order. */
export interface Embedder {
  /** Stable id stored in the index, e.g. 'builtin:use-lite-512' or 'ollama:nomic-embed-text'. */
  readonly name: string;
  readonly dimensions: number;
  /** Preferred number of texts per embed() call. */
  readonly maxBatch: number;
  /**
   * Batches it works on at once, when it runs them apart from the caller's
   * thread (the built-in model's worker threads): a caller that keeps this
   * many in flight keeps every worker busy. Absent: the caller's own choice.
   */
  readonly concurrency?: number;
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface EmbedOptions {
  signal?: AbortSignal;
}
