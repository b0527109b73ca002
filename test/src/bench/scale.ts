/**
 * `npm run bench -- --scale 100k|1m`: search at a given index size. Builds
 * (once, then cached) a corpus of synthetic modules `mod<N>/` of at least that
 * many chunks, indexed with seeded random vectors under the built-in model's
 * name (random-embedder.ts: embedding 1M chunks with the model would take
 * hours here), then measures index size on disk, peak RSS while indexing
 * and while serving, time to open, p50/p99 per query category and the cold
 * start of `codesift search`. With a baseline tree (e.g. the previous HEAD)
 * the same queries are timed against it in the same run, for ratios.
 *
 * Cache: $CODESIFT_BENCH_CACHE or ~/.cache/codesift-bench, one directory per size.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLocalEngine, type SearchRequest } from '@codesift/search';
import { hnswPaths, openSqliteIndex, type SearchFilter } from '@codesift/stores';
import { syntheticRepo } from '../support/tree.js';
import { runIndexJob, runJsonWorker, type WorkerResult } from './index-jobs.js';
import { coldStart, percentile, querySet } from './query-set.js';
import type { ServeArgs, ServeResult } from './scale-serve.js';

export const SCALES = { '100k': 100_000, '1m': 1_000_000 } as const;
export type Scale = keyof typeof SCALES;

/** Files per `mod<N>/` directory: many top-level directories, as in a monorepo. */
const FILES_PER_MODULE = 2000;
const OWN_TREE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Filtered queries of several selectivities over the mod<N>/ layout. */
const FILTERED: SearchRequest[] = [
  { query: 'parse arguments', filter: { languages: ['go'] } },
  { query: 'order total', filter: { include: ['mod3/**'] } },
  { query: 'add order amount', filter: { include: ['mod1/src/pkg5/**'] } },
  { query: 'parse arguments', filter: { languages: ['swift'] } },
  { query: 'request handler error', filter: { include: ['**/*.py'] } },
  { query: 'add order', filter: { exclude: ['**/*.md', 'mod0/**'] } },
  { query: 'emit event', filter: { languages: ['typescript'], include: ['mod2/**'] } },
  { query: 'http server', collapseFiles: true },
];

/** The store filters the engine sends for FILTERED (globs reduced to prefixes), timed alone. */
const VECTOR_FILTERS: Record<string, SearchFilter> = {
  'go (1 language of 15)': { languages: ['go'] },
  'swift (4.4 % of rows, scattered)': { languages: ['swift'] },
  'mod3/ (one directory of 18)': { pathPrefixes: ['mod3/'] },
  'mod1/src/pkg5/ (81 rows)': { pathPrefixes: ['mod1/src/pkg5/'] },
  'typescript in mod2/': { languages: ['typescript'], pathPrefixes: ['mod2/'] },
  'not mod0/': { excludePathPrefixes: ['mod0/'] },
};

export function benchCacheDir(): string {
  return path.resolve(
    process.env.CODESIFT_BENCH_CACHE?.trim() || path.join(homedir(), '.cache', 'codesift-bench'),
  );
}

/** Chunks in the index at `indexPath` (0 when there is none). */
export function chunksIn(indexPath: string): number {
  if (!existsSync(indexPath)) return 0;
  const index = openSqliteIndex(indexPath, { readonly: true });
  try {
    return index.stats().chunks;
  } finally {
    index.close();
  }
}

/** Bytes of the index and what lies next to it (WAL, HNSW graph, sidecar and quantized copy). */
function indexBytes(indexPath: string): number {
  const dir = path.dirname(indexPath);
  const base = path.basename(indexPath);
  return readdirSync(dir)
    .filter((f) => f.startsWith(base))
    .reduce((n, f) => n + statSync(path.join(dir, f)).size, 0);
}

interface Built {
  indexPath: string;
  chunks: number;
  /** The indexing runs that built it (none when it came from the cache). */
  runs: WorkerResult[];
  /**
   * Milliseconds a writer's flush took on a cached index built by an older
   * tree, to write the quantized copy beside the graph (0: it had one).
   */
  upgradeMs: number;
}

/** Opens `indexPath` as a writer and flushes, bringing its derived files up to date. */
function flushDerivedFiles(indexPath: string): number {
  const t = performance.now();
  const w = openSqliteIndex(indexPath);
  try {
    w.flushVectorIndex();
  } finally {
    w.close();
  }
  return performance.now() - t;
}

/** The cached corpus of `size`, built (topped up module by module) when missing. */
async function ensureCorpus(
  scale: Scale,
  rebuild: boolean,
  log: (m: string) => void,
): Promise<Built> {
  const dir = path.join(benchCacheDir(), `scale-${scale}`);
  if (rebuild) rmSync(dir, { recursive: true, force: true });
  const root = path.join(dir, 'repo');
  const indexPath = path.join(dir, 'index.db');
  mkdirSync(root, { recursive: true });
  const runs: WorkerResult[] = [];
  let chunks = chunksIn(indexPath);
  let modules = readdirSync(root).filter((d) => d.startsWith('mod')).length;
  while (chunks < SCALES[scale]) {
    // The modules still needed, from the chunks per module so far (~6 chunks
    // a file before any are indexed). Modules generated but never indexed (a
    // run that failed) count at that estimate: with no chunks yet, dividing
    // by the measured rate would ask for infinitely many.
    const perModule = chunks > 0 ? chunks / modules : FILES_PER_MODULE * 6;
    const expected = Math.max(chunks, modules * perModule);
    const missing = Math.max(0, Math.ceil((SCALES[scale] - expected) / perModule));
    for (let i = 0; i < missing; i++) {
      syntheticRepo(path.join(root, `mod${modules}`), FILES_PER_MODULE, 'all');
      modules++;
    }
    log(`  ${modules} modules; indexing with random vectors`);
    const r = await runIndexJob({ root, indexPath, vectors: true, randomVectors: true });
    runs.push(r);
    if (r.summary.chunks === 0) {
      throw new Error(
        `indexing ${root} added no chunks (${chunks} in the index, ${SCALES[scale]} wanted): delete ${dir} and run again`,
      );
    }
    chunks = chunksIn(indexPath);
    log(`  ${chunks} chunks, ${r.wallSeconds.toFixed(0)} s, peak RSS ${r.maxRssMB.toFixed(0)} MB`);
  }
  // Only when the copy is missing: a cached index is otherwise left as it is.
  const upgradeMs =
    runs.length === 0 && !existsSync(hnswPaths(indexPath).quantized)
      ? flushDerivedFiles(indexPath)
      : 0;
  return { indexPath, chunks, runs, upgradeMs };
}

function serve(args: ServeArgs): Promise<ServeResult> {
  return runJsonWorker<ServeResult>(
    path.join(OWN_TREE, 'test', 'dist', 'bench', 'scale-serve.js'),
    args,
  );
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

export interface ScaleOptions {
  scale: Scale;
  rebuild: boolean;
  rounds: number;
  /** A built codesift tree to time the same queries against (same index). */
  baseline?: string;
  log: (m: string) => void;
}

/** Runs the scale benchmark and returns its markdown report. */
export async function benchScale(o: ScaleOptions): Promise<string> {
  const lines: string[] = [`### ${o.scale} chunks`, ''];
  const built = await ensureCorpus(o.scale, o.rebuild, o.log);
  const queriesFile = path.join(path.dirname(built.indexPath), 'queries.json');
  const kw = await openLocalEngine({ indexPath: built.indexPath, embedder: null });
  const status = await kw.status();
  writeFileSync(queriesFile, JSON.stringify(await querySet(kw, FILTERED)));
  await kw.close();

  const indexing = built.runs.length === 0 ? null : built.runs;
  lines.push(
    `Index: ${status.files} files, ${status.chunks} chunks, ${status.vectors} vectors (seeded random, 512 dims; queries embedded by the built-in model); ${(indexBytes(built.indexPath) / 2 ** 20).toFixed(0)} MiB on disk (database, WAL, HNSW graph, quantized copy).`,
    indexing === null
      ? `Indexing: from the cache (run with --rebuild to measure it)${built.upgradeMs > 0 ? `; it lacked the quantized copy, which a writer's flush wrote in ${(built.upgradeMs / 1000).toFixed(1)} s` : ''}.`
      : `Indexing: ${indexing.map((r) => `${r.summary.chunks} chunks in ${r.wallSeconds.toFixed(0)} s, peak RSS ${r.maxRssMB.toFixed(0)} MB`).join('; ')}.`,
    '',
  );

  lines.push(`Load average when serving starts: ${load()}`, '');
  o.log('  serving: this tree');
  const own = await serve({
    tree: OWN_TREE,
    indexPath: built.indexPath,
    queries: queriesFile,
    rounds: o.rounds,
    vectorFilters: VECTOR_FILTERS,
  });
  let base: ServeResult | null = null;
  let ownAgain: ServeResult | null = null;
  if (o.baseline !== undefined) {
    // Same queries against the baseline, then this tree again: the ratio uses the
    // mean of the two own runs, so a load change during the run shows as a spread.
    o.log(`  serving: ${o.baseline}`);
    base = await serve({
      tree: path.resolve(o.baseline),
      indexPath: built.indexPath,
      queries: queriesFile,
      rounds: o.rounds,
      vectorFilters: VECTOR_FILTERS,
    });
    o.log('  serving: this tree again');
    ownAgain = await serve({
      tree: OWN_TREE,
      indexPath: built.indexPath,
      queries: queriesFile,
      rounds: o.rounds,
      vectorFilters: VECTOR_FILTERS,
    });
  }
  lines.push(
    `Open: ${fmt(own.openMs)} ms; first query ${fmt(own.firstQueryMs)} ms; peak serving RSS ${own.engineRssMB.toFixed(0)} MB (${own.maxRssMB.toFixed(0)} MB after the vector-side section, which opens the index a second time).`,
    '',
    `| queries | n | p50 ms | p99 ms | max ms |${base ? ' baseline p50 | baseline p99 | p50 ratio | p99 ratio |' : ''}`,
    `| --- | ---: | ---: | ---: | ---: |${base ? ' ---: | ---: | ---: | ---: |' : ''}`,
  );
  for (const c of own.categories) {
    let row = `| ${c.category} | ${c.n} | ${fmt(c.p50)} | ${fmt(c.p99)} | ${fmt(c.max)} |`;
    const b = base?.categories.find((x) => x.category === c.category);
    const a = ownAgain?.categories.find((x) => x.category === c.category);
    if (b && a) {
      const p50 = (c.p50 + a.p50) / 2;
      const p99 = (c.p99 + a.p99) / 2;
      row += ` ${fmt(b.p50)} | ${fmt(b.p99)} | ${(p50 / b.p50).toFixed(2)} | ${(p99 / b.p99).toFixed(2)} |`;
    }
    lines.push(row);
  }
  if (base && ownAgain) {
    lines.push(
      '',
      `Ratios: this tree (mean of the runs before and after the baseline's; second run all p50 ${fmt(ownAgain.categories.find((c) => c.category === 'all')!.p50)} ms) / baseline; baseline open ${fmt(base.openMs)} ms, peak serving RSS ${base.engineRssMB.toFixed(0)} MB (${base.maxRssMB.toFixed(0)} MB at the end).`,
    );
  }
  lines.push(
    '',
    'Vector side alone (store search, limit 50, 15 random query vectors after a first search):',
    '',
    `| store filter | first ms | p50 ms | max ms |${base ? ' baseline first | baseline p50 | p50 ratio |' : ''}`,
    `| --- | ---: | ---: | ---: |${base ? ' ---: | ---: | ---: |' : ''}`,
  );
  for (const v of own.vectorFilters) {
    let row = `| ${v.name} | ${fmt(v.firstMs)} | ${fmt(v.p50)} | ${fmt(v.max)} |`;
    const b = base?.vectorFilters.find((x) => x.name === v.name);
    const a = ownAgain?.vectorFilters.find((x) => x.name === v.name);
    if (b && a) {
      row += ` ${fmt(b.firstMs)} | ${fmt(b.p50)} | ${((v.p50 + a.p50) / 2 / b.p50).toFixed(2)} |`;
    }
    lines.push(row);
  }
  const cold = coldStart(['--index', built.indexPath, 'parse command line arguments']);
  const coldKw = coldStart([
    '--index',
    built.indexPath,
    '--keyword-only',
    'parse command line arguments',
  ]);
  lines.push(
    '',
    `Cold start of \`codesift search\` (5 runs, median): hybrid ${fmt(percentile(cold, 50))} ms, --keyword-only ${fmt(percentile(coldKw, 50))} ms.`,
    `Load average at end: ${load()}`,
  );
  return lines.join('\n');
}
