/**
 * `npm run bench`: indexing benchmarks against the targets in the local-mode
 * issue, freshness under `codesift watch` (freshness.ts), the LLM contexts'
 * (llm-context.ts) and the LLM rewrite's (rewrite.ts). Prints markdown tables
 * and writes bench-results/indexing.json and bench-results/rewrite.json.
 *
 *   npm run bench                      # full sizes (several minutes)
 *   npm run bench -- --quick           # small sizes, a smoke run
 *   npm run bench -- --keyword-only    # indexing without the model (seconds)
 *   npm run bench -- --repo <dir>      # also index a real repository
 *   npm run bench -- --baseline <dir>  # also: no-model indexing speed and search
 *                                      # latency against another built tree
 *                                      # (e.g. the previous HEAD)
 *   npm run bench -- --only llm        # one section: indexing, freshness, llm,
 *                                      # baseline or rewrite (repeatable)
 *   npm run bench -- --scale 100k      # only search at 100k (or 1m) chunks, corpus
 *                                      # cached (scale.ts); with --baseline, ratios
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBuiltinEmbedder } from '@codesift/models';
import { syntheticRepo } from '../support/tree.js';
import { type FreshnessResult, measureFreshness } from './freshness.js';
import { runIndexJob, type WorkerResult } from './index-jobs.js';
import { type BenchRow, baselineRatio, llmContextRows } from './llm-context.js';
import { benchRewrite } from './rewrite.js';
import { benchScale, SCALES, type Scale } from './scale.js';

const SECTIONS = ['indexing', 'freshness', 'llm', 'baseline', 'rewrite'] as const;
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    // Only the indexing scenarios without the embedding model (seconds instead of minutes).
    'keyword-only': { type: 'boolean', default: false },
    repo: { type: 'string', multiple: true },
    baseline: { type: 'string' },
    only: { type: 'string', multiple: true },
    scale: { type: 'string', multiple: true },
    rebuild: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
  },
});
if (values.scale !== undefined) {
  for (const s of values.scale) {
    if (!(s in SCALES))
      throw new Error(`--scale takes ${Object.keys(SCALES).join(', ')}; got ${s}`);
  }
  const rounds = Number(values.rounds);
  if (!(Number.isInteger(rounds) && rounds >= 1)) {
    throw new Error(`--rounds takes a positive integer; got ${values.rounds}`);
  }
  const reports: string[] = [];
  for (const scale of values.scale as Scale[]) {
    console.error(`search at ${scale} chunks`);
    reports.push(
      await benchScale({
        scale,
        rebuild: values.rebuild,
        rounds,
        ...(values.baseline === undefined ? {} : { baseline: values.baseline }),
        log: (m) => console.error(m),
      }),
    );
  }
  console.log(reports.join('\n\n'));
  process.exit(0);
}
const quick = values.quick;
const only = new Set(values.only ?? SECTIONS);
for (const s of only) {
  if (!(SECTIONS as readonly string[]).includes(s)) {
    throw new Error(`--only takes ${SECTIONS.join(', ')}; got ${s}`);
  }
}
if (only.has('baseline') && values.baseline === undefined && values.only !== undefined) {
  throw new Error('--only baseline needs --baseline <built codesift tree>');
}
const work = mkdtempSync(path.join(tmpdir(), 'codesift-bench-'));

function runWorker(root: string, indexPath: string, vectors: boolean): Promise<WorkerResult> {
  return runIndexJob({ root, indexPath, vectors });
}

async function embedderAlone(n: number): Promise<number> {
  const embedder = await createBuiltinEmbedder();
  const texts = Array.from(
    { length: n },
    (_, i) =>
      `Method addOrder (add order) in OrderService${i}, lines 7-13 of TypeScript file src/pkg/service${i}.ts.\n  addOrder(id: string, amount: number): void {\n    if (amount <= 0) {\n      throw new Error('amount must be positive');\n    }\n    this.orders.set(id, amount);\n    this.emit('added', id, amount);\n  }`,
  );
  await embedder.embed(texts.slice(0, embedder.maxBatch)); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += embedder.maxBatch)
    await embedder.embed(texts.slice(i, i + embedder.maxBatch));
  const rate = texts.length / ((performance.now() - t0) / 1000);
  await embedder.close();
  return rate;
}

const rows: BenchRow[] = [];
function record(scenario: string, r: WorkerResult, target: string, ok: boolean) {
  rows.push({
    scenario,
    files: r.summary.filesIndexed,
    chunks: r.summary.chunks,
    seconds: Math.round(r.wallSeconds * 100) / 100,
    chunksPerSecond: Math.round(r.summary.chunksPerSecond),
    maxRssMB: Math.round(r.maxRssMB),
    target,
    ok,
  });
  console.error(`  ${scenario}: ${JSON.stringify(rows.at(-1))}`);
}
const log = (line: string) => console.error(line);
const loads: string[] = [];
const noteLoad = (when: string) =>
  loads.push(
    `${when}: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}`,
  );

try {
  const big = quick ? 1000 : 5000;
  const small = 300;
  console.error(`generating synthetic repositories (${big} and ${small} files) in ${work}`);
  const bigRoot = path.join(work, `synthetic-${big}`);
  const smallRoot = path.join(work, `synthetic-${small}`);
  syntheticRepo(bigRoot, big, 'all');
  syntheticRepo(smallRoot, small, 'all');

  noteLoad('start');
  let alone: number | null = null;
  const keywordOnly = values['keyword-only'];
  if (only.has('indexing')) {
    console.error('keyword-only indexing');
    const novec = await runWorker(bigRoot, path.join(work, 'novec.db'), false);
    record(
      `index ${big} files, --no-vectors`,
      novec,
      '>= 4,000 chunks/s',
      novec.summary.chunksPerSecond >= 4000,
    );

    console.error('re-index with nothing changed');
    const again = await runWorker(bigRoot, path.join(work, 'novec.db'), false);
    record(`re-index ${big} files, nothing changed`, again, '< 2 s', again.wallSeconds < 2);
  }
  const freshness: FreshnessResult[] = [];
  if (only.has('freshness')) {
    console.error('freshness: saved edits under codesift watch, keyword-only index');
    freshness.push(
      await measureFreshness({
        root: bigRoot,
        indexPath: path.join(work, 'fresh-novec.db'),
        vectors: false,
        files: big,
      }),
    );
  }
  if (only.has('indexing') && !keywordOnly) {
    console.error('embedder alone');
    alone = await embedderAlone(quick ? 128 : 512);

    // One run with the model measures both targets: throughput end to end and
    // peak RSS. In --quick mode it runs on the small repository.
    console.error('indexing with the built-in embedder (minutes in full mode)');
    const vecRoot = quick ? smallRoot : bigRoot;
    const vecFiles = quick ? small : big;
    const vec = await runWorker(vecRoot, path.join(work, 'vec.db'), true);
    record(
      `index ${vecFiles} files, built-in embedder`,
      vec,
      '>= 100 chunks/s, peak RSS < 1,500 MB',
      vec.summary.chunksPerSecond >= 100 && vec.maxRssMB < 1500,
    );
    for (const repo of values.repo ?? []) {
      const name = path.basename(path.resolve(repo));
      const r1 = await runWorker(path.resolve(repo), path.join(work, `${name}-novec.db`), false);
      record(`real repo ${name}, --no-vectors`, r1, 'info', true);
      if (keywordOnly) continue;
      const r2 = await runWorker(path.resolve(repo), path.join(work, `${name}-vec.db`), true);
      record(`real repo ${name}, built-in embedder`, r2, 'info', true);
    }
    noteLoad('after indexing');
  }
  if (only.has('freshness') && !keywordOnly) {
    console.error('freshness: saved edits under codesift watch, built-in embedder');
    freshness.push(
      await measureFreshness({
        root: quick ? smallRoot : bigRoot,
        indexPath: path.join(work, 'fresh-vec.db'),
        vectors: true,
        files: quick ? small : big,
      }),
    );
  }

  if (only.has('baseline') && values.baseline !== undefined) {
    console.error(`no model configured: this tree against ${values.baseline}`);
    const baseline = path.resolve(values.baseline);
    const add = (r: BenchRow) => {
      rows.push(r);
      log(`  ${r.scenario}: ${r.note}`);
    };
    add(
      await baselineRatio({
        root: bigRoot,
        files: big,
        work,
        baseline,
        vectors: false,
        rounds: 3,
        log,
      }),
    );
    add(
      await baselineRatio({
        root: smallRoot,
        files: small,
        work,
        baseline,
        vectors: true,
        rounds: quick ? 1 : 2,
        log,
      }),
    );
    noteLoad('after baseline');
  }

  if (only.has('llm')) {
    console.error('LLM contexts against a fake model');
    const llmFiles = quick ? small : 1000;
    const llmRoot = path.join(work, `synthetic-llm-${llmFiles}`);
    syntheticRepo(llmRoot, llmFiles);
    for (const r of await llmContextRows({ root: llmRoot, files: llmFiles, work, log })) {
      rows.push(r);
      log(`  ${r.scenario}: ${JSON.stringify(r)}`);
    }
    noteLoad('after llm');
  }

  if (only.has('rewrite')) {
    console.error('LLM rewrite');
    const { markdown, json } = await benchRewrite({
      files: quick ? 500 : 5000,
      rounds: quick ? 3 : 20,
      delayMs: 200,
      ...(values.baseline ? { baseline: values.baseline } : {}),
    });
    console.log(`\n${markdown}`);
    mkdirSync('bench-results', { recursive: true });
    writeFileSync(path.join('bench-results', 'rewrite.json'), JSON.stringify(json, null, 2));
    noteLoad('after rewrite');
  }

  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  const header = `Machine: ${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.versions.node}\n${alone === null ? '' : `Embedder alone: ${Math.round(alone)} texts/s\n`}Load average (1/5/15 min): ${loads.join('; ')}\n`;
  const table = [
    '| scenario | files | chunks | wall s | chunks/s | peak RSS MB | target | met |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.files} | ${r.chunks} | ${r.seconds} | ${r.chunksPerSecond} | ${r.maxRssMB} | ${r.target} | ${r.ok ? 'yes' : 'NO'} |`,
    ),
  ].join('\n');
  const freshTable = [
    '| freshness | files | edits | edit to searchable p50 ms | max ms | watch idle CPU (10 s) | target | met |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...freshness.map((f) => {
      const ok = f.latencyMs.max < 1000 && (f.idleCpuPercent ?? 0) < 1;
      const idle = f.idleCpuPercent === null ? 'n/a' : `${f.idleCpuPercent} %`;
      return `| codesift watch, ${f.vectors ? 'built-in embedder' : 'keyword-only'} | ${f.files} | ${f.edits} | ${f.latencyMs.p50} | ${f.latencyMs.max} | ${idle} | every edit < 1 s, idle < 1 % CPU | ${ok ? 'yes' : 'NO'} |`;
    }),
  ].join('\n');
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.scenario}: ${r.note}`);
  console.log(
    `${header}\n${table}\n\n${notes.join('\n')}${freshness.length > 0 ? `\n\n${freshTable}` : ''}`,
  );
  mkdirSync('bench-results', { recursive: true });
  writeFileSync(
    path.join('bench-results', 'indexing.json'),
    JSON.stringify(
      { machine: header, embedderAloneTextsPerSecond: alone, loads, rows, freshness },
      null,
      2,
    ),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
