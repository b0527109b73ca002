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
