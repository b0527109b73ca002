/**
 * The search benchmarks' query mix (identifiers, natural language, long
 * pasted text, filtered) and the helpers both in-process benchmarks share:
 * search.ts on the 50k corpus and scale.ts at 100k / 1M chunks.
 */
import { spawnSync } from 'node:child_process';
import type { SearchEngine, SearchRequest } from '@codesift/search';
import { cliBin } from '../support/cli.js';

export type QueryCategory = 'identifier' | 'natural' | 'long' | 'filtered';

export interface Query {
  category: QueryCategory;
  request: SearchRequest;
}

const NATURAL = [
  'how are edges inserted into the graph',
  'parse command line arguments',
  'read a file and split it into lines',
  'where is the http request body parsed',
  'retry a failed request with backoff',
  'escape html special characters',
  'convert a string to camel case',
  'validate a json schema',
  'compute the sha256 hash of a buffer',
  'handle errors when the connection is closed',
  'order total amount must be positive',
  'how is the cache invalidated',
  'serialize a protobuf message to binary',
  'start an http server on a port',
  'decode utf8 bytes',
  'sort items by priority',
];

/** Identifier, natural-language and long queries drawn from the index, plus the given filtered ones. */
export async function querySet(engine: SearchEngine, filtered: SearchRequest[]): Promise<Query[]> {
  const vocab = await engine.vocabulary({ limit: 4000 });
  // Identifiers of several frequencies: some unique, some shared by many files.
  const names = vocab.filter((v) => v.name.length >= 6).map((v) => v.name);
  const step = Math.max(1, Math.floor(names.length / 24));
  const identifiers = names.filter((_, i) => i % step === 0).slice(0, 24);
  const queries: Query[] = [
    ...identifiers.map((q) => ({ category: 'identifier' as const, request: { query: q } })),
    ...NATURAL.map((q) => ({ category: 'natural' as const, request: { query: q } })),
  ];
  // Long pasted text: a stack trace and bug reports built from real chunks of the corpus.
  const hits = await engine.search({ query: 'error message stack request handler', limit: 40 });
  const texts = hits.results.map((r) => r.snippet);
  const trace = [
    'TypeError: Cannot read properties of undefined (reading "length")',
    ...identifiers.slice(0, 12).map((n, i) => `    at ${n} (src/module${i}.ts:${10 + i}:${5 + i})`),
  ].join('\n');
  queries.push({ category: 'long', request: { query: trace } });
  for (const kb of [2, 5, 10, 20]) {
    let text = 'Bug report: after upgrading, search returns nothing and logs the following.\n';
    for (let i = 0; text.length < kb * 1024; i++) text += `${texts[i % texts.length]}\n${trace}\n`;
    queries.push({ category: 'long', request: { query: text.slice(0, kb * 1024) } });
  }
  queries.push(...filtered.map((request) => ({ category: 'filtered' as const, request })));
  return queries;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** Wall times (sorted, ms) of `runs` cold `codesift search` processes. */
export function coldStart(args: string[], runs = 5): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cliBin, 'search', ...args], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`codesift search failed: ${r.stderr}`);
  }
  return times.sort((a, b) => a - b);
}
