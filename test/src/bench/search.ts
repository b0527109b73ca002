/**
 * Search latency benchmark (not a test):
 *
 *   node test/dist/bench/search.js                 # hybrid and keyword-only
 *   node test/dist/bench/search.js --no-vectors    # keyword-only index only (no model, fast to build)
 *   node test/dist/bench/search.js --rebuild       # rebuild the cached corpus and indexes
 *   node test/dist/bench/search.js --partial-vectors  # measure a vector index whose build was cut short
 *
 * Corpus: real sources from this repository's node_modules (copied, so the
 * scanner does not skip them as vendored) topped up with synthetic modules
 * until the index holds at least MIN_CHUNKS chunks. The corpus and its two
 * indexes (with and without vectors) are cached under
 * <tmpdir>/codesift-bench-search, because embedding ~50k chunks with the
 * built-in model takes minutes.
 *
 * Measures in-process search latency (p50/p99) over a mixed query set
 * (identifiers, natural language, long pasted text, filtered) and the cold
 * start of `codesift search` as a child process, and prints markdown tables.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBuiltinEmbedder } from '@codesift/models';
import { indexRepository } from '@codesift/pipeline';
import { openLocalEngine, type SearchEngine, type SearchRequest } from '@codesift/search';
import { repoRoot } from '../support/cli.js';
import { syntheticRepo } from '../support/tree.js';
import { coldStart, percentile, type Query, querySet } from './query-set.js';
import { chunksIn } from './scale.js';

/** Filtered queries for this corpus (real/ sources plus synth<N>/ modules). */
const FILTERED: SearchRequest[] = [
  { query: 'parse arguments', filter: { languages: ['typescript'] } },
  { query: 'order total', filter: { include: ['synth0/**'] } },
  { query: 'request handler error', filter: { include: ['**/*.js'] } },
  { query: 'add order', filter: { exclude: ['**/*.md', 'real/**'] } },
  { query: 'http server', collapseFiles: true },
];

const MIN_CHUNKS = 50_000;
const SOURCE_EXTS = new Set(['.ts', '.js', '.mjs', '.cjs', '.py', '.go', '.rs', '.java', '.md']);

const { values } = parseArgs({
  options: {
    'no-vectors': { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    /** Measure on the vector index as it is, even if its embedding run was cut short. */
    'partial-vectors': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
    cache: { type: 'string', default: path.join(tmpdir(), 'codesift-bench-search') },
  },
});
const cache = path.resolve(values.cache);
const corpus = path.join(cache, 'repo');
const rounds = Math.max(1, Number(values.rounds));

function log(msg: string): void {
  process.stderr.write(`${msg}\n`);
}

/** Copies small source files of installed packages into `dest`, keeping their relative paths. */
function copyRealSources(from: string, dest: string): number {
  let n = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name === '.bin' || e.name === '@codesift') continue;
        walk(p);
      } else if (e.isFile() && SOURCE_EXTS.has(path.extname(e.name)) && !e.name.includes('.min.')) {
        if (statSync(p).size > 200_000) continue;
        // `node_modules` in a path makes the scanner skip it as vendored; flatten the name.
        const rel = path.relative(from, p).replaceAll(`node_modules${path.sep}`, 'nm_');
        const to = path.join(dest, rel);
        mkdirSync(path.dirname(to), { recursive: true });
        copyFileSync(p, to);
        n++;
      }
    }
  };
  walk(from);
  return n;
}

async function buildIndex(indexPath: string, vectors: boolean): Promise<void> {
  const t0 = performance.now();
  const embedder = vectors ? await createBuiltinEmbedder() : undefined;
  let last = 0;
  try {
    const s = await indexRepository({
      root: corpus,
      indexPath,
      vectors,
      embedder,
      onProgress: (p) => {
        const now = performance.now();
        if (now - last > 15_000) {
          last = now;
          log(`  ${JSON.stringify(p).slice(0, 200)}`);
        }
      },
    });
    log(
      `  indexed ${s.totals.chunks} chunks (${s.vectors} vectors) in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
  } finally {
    await embedder?.close();
  }
}

async function ensureCorpus(): Promise<{ vec: string | null; novec: string }> {
  if (values.rebuild) rmSync(cache, { recursive: true, force: true });
  const ready = path.join(cache, 'corpus-ready');
  const novec = path.join(cache, 'novec.db');
  if (!existsSync(ready)) {
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(corpus, { recursive: true });
    const copied = copyRealSources(path.join(repoRoot, 'node_modules'), path.join(corpus, 'real'));
    log(`copied ${copied} real source files`);
    // Top up with synthetic modules until the keyword index reaches MIN_CHUNKS.
    let modules = 0;
    await buildIndex(novec, false);
    while (chunksIn(novec) < MIN_CHUNKS) {
      const missing = MIN_CHUNKS - chunksIn(novec);
      const batch = Math.max(200, Math.ceil(missing / 4));
      syntheticRepo(path.join(corpus, `synth${modules}`), batch);
      modules += batch;
      log(`added ${batch} synthetic modules`);
      await buildIndex(novec, false);
    }
    writeFileSync(ready, new Date().toISOString());
  } else if (chunksIn(novec) < MIN_CHUNKS) {
    await buildIndex(novec, false);
  }
  if (values['no-vectors']) return { vec: null, novec };
  const vec = path.join(cache, 'vec.db');
  if (values['partial-vectors'] && existsSync(vec)) return { vec, novec };
  if (chunksIn(vec) < chunksIn(novec)) {
    log('embedding the corpus with the built-in model (minutes; cached afterwards)');
    await buildIndex(vec, true);
  }
  return { vec, novec };
}

interface Measured {
  config: string;
  category: string;
  n: number;
  p50: number;
  p99: number;
  max: number;
  keywordP50: number;
  keywordP99: number;
  embedP50: number;
}

async function measure(
  config: string,
  engine: SearchEngine,
  queries: Query[],
  extra: Partial<SearchRequest>,
): Promise<Measured[]> {
  for (const q of queries) await engine.search({ ...q.request, ...extra }); // warm-up
  const samples = new Map<string, { total: number[]; keyword: number[]; embed: number[] }>();
  const add = (cat: string, t: Record<string, number>) => {
    let s = samples.get(cat);
    if (!s) {
      s = { total: [], keyword: [], embed: [] };
      samples.set(cat, s);
    }
    s.total.push(t.total ?? 0);
    s.keyword.push(t.keyword ?? 0);
    if (t.embed !== undefined) s.embed.push(t.embed);
  };
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      const res = await engine.search({ ...q.request, ...extra });
      const wall = performance.now() - t0;
      const t = { ...res.timings, total: wall };
      add(q.category, t);
      add('all', t);
    }
  }
  const out: Measured[] = [];
  for (const [category, s] of samples) {
    const total = [...s.total].sort((a, b) => a - b);
    const kw = [...s.keyword].sort((a, b) => a - b);
    const em = [...s.embed].sort((a, b) => a - b);
    out.push({
      config,
      category,
      n: total.length,
      p50: percentile(total, 50),
      p99: percentile(total, 99),
      max: total[total.length - 1]!,
      keywordP50: percentile(kw, 50),
      keywordP99: percentile(kw, 99),
      embedP50: percentile(em, 50),
    });
  }
  return out;
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');

async function main(): Promise<void> {
  const { vec, novec } = await ensureCorpus();
  const results: Measured[] = [];
  const novecEngine = await openLocalEngine({ indexPath: novec, embedder: null });
  const queries = await querySet(novecEngine, FILTERED);
  const status = await novecEngine.status();
  results.push(...(await measure('keyword-only index', novecEngine, queries, {})));
  await novecEngine.close();
  let vecChunks: number | null = null;
  let vecTotal = 0;
  if (vec) {
    const engine = await openLocalEngine({ indexPath: vec });
    const vs = await engine.status();
    vecChunks = vs.vectors;
    vecTotal = vs.chunks;
    results.push(...(await measure('hybrid, linear', engine, queries, {})));
    results.push(...(await measure('hybrid, rrf', engine, queries, { fusion: 'rrf' })));
    results.push(
      ...(await measure('vector index, --keyword-only', engine, queries, { keywordOnly: true })),
    );
    await engine.close();
  }

  const cold: { what: string; times: number[] }[] = [];
  cold.push({
    what: 'keyword-only index',
    times: coldStart(['--index', novec, 'parse command line arguments']),
  });
  if (vec) {
    cold.push({
      what: 'hybrid (loads the model)',
      times: coldStart(['--index', vec, 'parse command line arguments']),
    });
    cold.push({
      what: 'vector index, --keyword-only',
      times: coldStart(['--index', vec, '--keyword-only', 'parse command line arguments']),
    });
  }

  const lines: string[] = [];
  lines.push(
    `Corpus: ${status.files} files, ${status.chunks} chunks${vecChunks === null ? '' : `; vector index: ${vecTotal} chunks, ${vecChunks} vectors`}; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.versions.node}; ${queries.length} queries x ${rounds} rounds after a warm-up.`,
    '',
    '| config | queries | n | p50 ms | p99 ms | max ms | keyword p50 | keyword p99 | embed p50 |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const r of results) {
    lines.push(
      `| ${r.config} | ${r.category} | ${r.n} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${fmt(r.keywordP50)} | ${fmt(r.keywordP99)} | ${fmt(r.embedP50)} |`,
    );
  }
  lines.push('', 'Target: p50 < 15 ms, p99 < 50 ms (all queries).', '');
  lines.push(
    '| `codesift search` cold start | min ms | median ms | max ms |',
    '| --- | ---: | ---: | ---: |',
  );
  for (const c of cold) {
    lines.push(
      `| ${c.what} | ${fmt(c.times[0]!)} | ${fmt(percentile(c.times, 50))} | ${fmt(c.times[c.times.length - 1]!)} |`,
    );
  }
  lines.push('', 'Target: < 1000 ms.');
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
