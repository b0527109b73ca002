// Messages between the pool (main thread) and its search workers. Plain
// data only: they cross threads by structured clone.
import type { WireError } from '@codesift/core';
import type { SearchRequest, SearchResponse } from '@codesift/search';
import type { TelemetryOptions, TraceHeaders } from '@codesift/telemetry';

/**
 * How a worker opens its engine: `import(module)[exportName](options)`.
 * `module` is a specifier the worker can import (a resolved file URL is
 * safest: resolve it where the factory is known, with import.meta.resolve).
 * `options` must survive structured clone (no functions, no open handles).
 */
export interface EngineFactory {
  module: string;
  exportName: string;
  options: unknown;
}

/** What a worker thread starts with (its workerData). */
export interface WorkerInit {
  factory: EngineFactory;
  /**
   * Set while the pool's process traces: the worker starts its own SDK
   * (one per thread) with these, so its spans join the caller's traces.
   */
  telemetry?: TelemetryOptions;
}

/** A SearchRequest without its AbortSignal, which cannot cross threads. */
export type WireSearchRequest = Omit<SearchRequest, 'signal'>;

export type ToWorker =
  | {
      type: 'search';
      id: number;
      request: WireSearchRequest;
      /** The caller's active span (the gRPC server span), parent of the worker's spans. */
      trace?: TraceHeaders;
    }
  | { type: 'cancel'; id: number }
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'open-failed'; error: WireError }
  | { type: 'result'; id: number; response: SearchResponse }
  | { type: 'failed'; id: number; error: WireError }
  | { type: 'closed' };
