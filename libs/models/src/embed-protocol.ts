import { CodesiftError, type ErrorCode, isCodesiftError } from '@codesift/core';

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

/** An error as it crosses the thread boundary: CodesiftError's code and hint survive. */
export interface WireError {
  name: string;
  message: string;
  code?: ErrorCode;
  hint?: string;
}

export function toWire(err: unknown): WireError {
  if (isCodesiftError(err)) {
    return {
      name: err.name,
      message: err.message,
      code: err.code,
      ...(err.hint ? { hint: err.hint } : {}),
    };
  }
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}

export function fromWire(wire: WireError): Error {
  if (wire.code) {
    return new CodesiftError(wire.code, wire.message, wire.hint ? { hint: wire.hint } : undefined);
  }
  const err = new Error(wire.message);
  err.name = wire.name;
  return err;
}
