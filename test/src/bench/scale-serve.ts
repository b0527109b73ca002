/**
 * One serving measurement of the scale benchmark in a fresh process, so its
 * peak RSS is the serving RSS alone. Opens the index with the search
 * library of a built codesift tree (this one, or e.g. the previous HEAD for
 * ratios), runs the query file `rounds` times after a warm-up and prints one
 * JSON line: open time, first-query time, per-category latencies, peak RSS.
 *
 *   node scale-serve.js '{"tree":"/work/prev","indexPath":"...","queries":"q.json","rounds":5}'
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as SearchLib from '@codesift/search';
import type * as StoresLib from '@codesift/stores';
import { percentile, type Query } from './query-set.js';

export interface ServeArgs {
  tree: string;
  indexPath: string;
  /** A JSON file holding Query[]. */
  queries: string;
  rounds: number;
  /** Only these categories (all when absent). */
  categories?: string[];
  /** Store filters to time on the vector side alone (random query vectors), by name. */
  vectorFilters?: Record<string, StoresLib.SearchFilter>;
}

export interface CategoryTimes {
  category: string;
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export interface ServeResult {
  openMs: number;
  firstQueryMs: number;
  categories: CategoryTimes[];
  /** Vector side alone, per store filter: the first search (builds caches) and p50/max of the rest. */
  vectorFilters: { name: string; firstMs: number; p50: number; max: number }[];
  /** Peak RSS when the engine's timed rounds end: the serving RSS proper. */
  engineRssMB: number;
  /** Peak RSS at the end, after the vector-side section opened the index a second time. */
  maxRssMB: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as ServeArgs;
const lib = (await import(
  pathToFileURL(path.join(args.tree, 'libs', 'search', 'dist', 'index.js')).href
)) as typeof SearchLib;
const all = JSON.parse(readFileSync(args.queries, 'utf8')) as Query[];
const queries = args.categories ? all.filter((q) => args.categories!.includes(q.category)) : all;

let t0 = performance.now();
// A serving engine (the server's settings but the preload, which would move the model's
// load into the open time); a tree without an option ignores it.
const engine = await lib.openLocalEngine({ indexPath: args.indexPath, longTextWorker: true });
const openMs = performance.now() - t0;
t0 = performance.now();
await engine.search(queries[0]!.request);
const firstQueryMs = performance.now() - t0;
for (const q of queries) await engine.search(q.request); // warm-up
const samples = new Map<string, number[]>();
const add = (cat: string, ms: number) => {
  const s = samples.get(cat) ?? [];
  s.push(ms);
  samples.set(cat, s);
};
for (let r = 0; r < args.rounds; r++) {
  for (const q of queries) {
    const t = performance.now();
    await engine.search(q.request);
    const ms = performance.now() - t;
    add(q.category, ms);
    add('all', ms);
  }
}
const engineRssMB = process.resourceUsage().maxRSS / 1024;
await engine.close();

// The vector side alone: the filtered store search the engine's vector side makes.
const stores = (await import(
  pathToFileURL(path.join(args.tree, 'libs', 'stores', 'dist', 'index.js')).href
)) as typeof StoresLib;
const index = stores.openSqliteIndex(args.indexPath, { readonly: true });
let seed = 7;
const rnd = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32 - 0.5;
};
const dims = 512;
const vectors = Array.from({ length: 15 }, () => Float32Array.from({ length: dims }, rnd));
const vectorFilters: ServeResult['vectorFilters'] = [];
for (const [name, filter] of Object.entries(args.vectorFilters ?? {})) {
  let t = performance.now();
  await index.vectors.search({ vector: vectors[0]!, limit: 50, filter });
  const firstMs = performance.now() - t;
  const times: number[] = [];
  for (const vector of vectors) {
    t = performance.now();
    await index.vectors.search({ vector, limit: 50, filter });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  vectorFilters.push({ name, firstMs, p50: percentile(times, 50), max: times[times.length - 1]! });
}
index.close();

const categories: CategoryTimes[] = [...samples].map(([category, s]) => {
  const sorted = [...s].sort((a, b) => a - b);
  return {
    category,
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
  };
});
const result: ServeResult = {
  openMs,
  firstQueryMs,
  categories,
  vectorFilters,
  engineRssMB,
  maxRssMB: process.resourceUsage().maxRSS / 1024,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
