/** A text embedding model. Vectors are L2-normalised, one per input, same order. */
export interface Embedder {
  /** Stable id stored in the index, e.g. 'builtin:use-lite-512' or 'ollama:nomic-embed-text'. */
  readonly name: string;
  readonly dimensions: number;
  /** Preferred number of texts per embed() call. */
  readonly maxBatch: number;
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface EmbedOptions {
  signal?: AbortSignal;
}
