/**
 * `npm run bench`: indexing benchmarks against the targets in the local-mode
 * issue, then the LLM rewrite's (rewrite.ts). Prints markdown tables and
 * writes bench-results/indexing.json and bench-results/rewrite.json.
 *
 *   npm run bench                        # full sizes (several minutes)
 *   npm run bench -- --quick             # small sizes, a smoke run
 *   npm run bench -- --repo <dir>        # also index a real repository
 *   npm run bench -- --keyword-only     # only the scenarios without the model (seconds)
 *   npm run bench -- --only rewrite      # one part: indexing or rewrite
 *   npm run bench -- --baseline <dir>    # a built checkout of the previous HEAD:
 *                                        # the rewrite part's no-model latency ratio
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createBuiltinEmbedder } from '@codesift/models';
import { syntheticRepo } from '../support/tree.js';
import { benchRewrite } from './rewrite.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    // Only the scenarios without the embedding model (seconds instead of minutes).
    'keyword-only': { type: 'boolean', default: false },
    repo: { type: 'string', multiple: true },
    only: { type: 'string' },
    baseline: { type: 'string' },
  },
});
const quick = values.quick;
const PARTS = ['indexing', 'rewrite'];
if (values.only !== undefined && !PARTS.includes(values.only)) {
  console.error(`--only must be one of ${PARTS.join(', ')}, not '${values.only}'`);
  process.exit(2);
}
const runs = (part: string) => values.only === undefined || values.only === part;
const work = mkdtempSync(path.join(tmpdir(), 'codesift-bench-'));

interface WorkerResult {
  summary: {
    filesIndexed: number;
    chunks: number;
    chunksPerSecond: number;
    seconds: number;
    filesScanned: number;
  };
  wallSeconds: number;
  modelLoadSeconds: number;
  maxRssMB: number;
}

function runWorker(root: string, indexPath: string, vectors: boolean): WorkerResult {
  const out = execFileSync(
    process.execPath,
    [path.join(here, 'index-worker.js'), JSON.stringify({ root, indexPath, vectors })],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(out.trim().split('\n').pop()!);
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

type Row = {
  scenario: string;
  files: number;
  chunks: number;
  seconds: number;
  chunksPerSecond: number;
  maxRssMB: number;
  target: string;
  ok: boolean;
};
const rows: Row[] = [];
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

async function indexingBench(): Promise<void> {
  const big = quick ? 1000 : 5000;
  const small = 300;
  console.error(`generating synthetic repositories (${big} and ${small} files) in ${work}`);
  const bigRoot = path.join(work, `synthetic-${big}`);
  const smallRoot = path.join(work, `synthetic-${small}`);
  syntheticRepo(bigRoot, big, 'all');
  syntheticRepo(smallRoot, small, 'all');

  console.error('keyword-only indexing');
  const novec = runWorker(bigRoot, path.join(work, 'novec.db'), false);
  record(
    `index ${big} files, --no-vectors`,
    novec,
    '>= 4,000 chunks/s',
    novec.summary.chunksPerSecond >= 4000,
  );

  console.error('re-index with nothing changed');
  const again = runWorker(bigRoot, path.join(work, 'novec.db'), false);
  record(`re-index ${big} files, nothing changed`, again, '< 2 s', again.wallSeconds < 2);

  let alone: number | null = null;
  if (!values['keyword-only']) {
    console.error('embedder alone');
    alone = await embedderAlone(quick ? 128 : 512);
    // One run with the model measures both targets: throughput end to end and
    // peak RSS. In --quick mode it runs on the small repository.
    console.error('indexing with the built-in embedder (minutes in full mode)');
    const vecRoot = quick ? smallRoot : bigRoot;
    const vecFiles = quick ? small : big;
    const vec = runWorker(vecRoot, path.join(work, 'vec.db'), true);
    record(
      `index ${vecFiles} files, built-in embedder`,
      vec,
      '>= 100 chunks/s, peak RSS < 1,500 MB',
      vec.summary.chunksPerSecond >= 100 && vec.maxRssMB < 1500,
    );
  }
  for (const repo of values.repo ?? []) {
    const name = path.basename(path.resolve(repo));
    const r1 = runWorker(path.resolve(repo), path.join(work, `${name}-novec.db`), false);
    record(`real repo ${name}, --no-vectors`, r1, 'info', true);
    if (values['keyword-only']) continue;
    const r2 = runWorker(path.resolve(repo), path.join(work, `${name}-vec.db`), true);
    record(`real repo ${name}, built-in embedder`, r2, 'info', true);
  }

  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  const header = `Machine: ${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.versions.node}\nEmbedder alone: ${alone === null ? 'not run (--keyword-only)' : `${Math.round(alone)} texts/s`}\n`;
  const table = [
    '| scenario | files | chunks | wall s | chunks/s | peak RSS MB | target | met |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.files} | ${r.chunks} | ${r.seconds} | ${r.chunksPerSecond} | ${r.maxRssMB} | ${r.target} | ${r.ok ? 'yes' : 'NO'} |`,
    ),
  ].join('\n');
  console.log(`${header}\n${table}`);
  mkdirSync('bench-results', { recursive: true });
  writeFileSync(
    path.join('bench-results', 'indexing.json'),
    JSON.stringify({ machine: header, embedderAloneTextsPerSecond: alone, rows }, null, 2),
  );
}

try {
  if (runs('indexing')) await indexingBench();
  if (runs('rewrite')) {
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
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
