/**
 * usearch, loaded on first use. Its native addon takes about 15 ms to load,
 * which a keyword-only search (a cold `codesift search --keyword-only`, an
 * index without a graph) would pay for nothing: only the graph and exact
 * vector search over a filter's rows need it.
 */
import { createRequire } from 'node:module';
import type usearchTypes from 'usearch';

export type Usearch = typeof usearchTypes;

const require = createRequire(import.meta.url);
let loaded: Usearch | undefined;

export function usearch(): Usearch {
  loaded ??= require('usearch') as Usearch;
  return loaded;
}

type Vector = Float32Array | Int8Array;

/** `v` itself when it starts its buffer, else a copy that does. */
function atBufferStart<T extends Vector>(v: T): T {
  return v.byteOffset === 0 ? v : (v.slice() as T);
}

/**
 * usearch's exactSearch (one query, cosine, one thread). Its binding (2.26)
 * reads the typed arrays from the start of their ArrayBuffer, ignoring
 * byteOffset, so a view into a larger buffer (a query vector sliced out of a
 * batch, a pooled Buffer) would be read from the wrong place: such views are
 * copied first.
 */
export function exactCosine<T extends Vector>(
  dataset: T,
  query: T,
  dimensions: number,
  count: number,
): { keys: BigUint64Array; distances: Float32Array } {
  return usearch().exactSearch(
    atBufferStart(dataset),
    atBufferStart(query),
    dimensions,
    count,
    usearch().MetricKind.Cos,
    1,
  ) as { keys: BigUint64Array; distances: Float32Array };
}
