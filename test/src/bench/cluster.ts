/**
 * Cluster benchmarks against the targets in the cluster issue. Prints a
 * markdown table and writes bench-results/cluster.json.
 *
 *   node test/dist/bench/cluster.js                 # 1,500 files, fixed:20
 *   node test/dist/bench/cluster.js --files 500 --no-builtin   # a smoke run
 *   node test/dist/bench/cluster.js --no-builtin --no-scale    # keyword overhead only
 *
 * (a) Pipeline overhead: one synthetic repository indexed by `codesift index`
 *     in local mode and by `codesift index --remote` against `npm run cluster`
 *     (every service on this machine), with the same embedder: keyword only,
 *     then the built-in model. Target: cluster >= 70 % of local chunks/s.
 * (b) Scale-out: the cluster with `--embedder fixed:<ms>` (a stand-in model
 *     that spends <ms> of wall time per chunk, one batch at a time per
 *     process, like one GPU per replica) and 1 vs 3 embedder replicas.
 *     Target: 3 replicas >= 2.5x the chunks/s of 1.
 * (c) Contextualizer scale-out: the cluster with a chat model configured,
 *     the loopback fake Ollama answering every chunk in --context-ms (50) ms,
 *     CODESIFT_LLM_CONCURRENCY=--context-concurrency (2) per replica, no
 *     embedder, 1 vs 3 contextualizer replicas; each run a fresh cluster, so
 *     an empty context cache. Target: 3 replicas >= 2.5x the chunks/s of 1.
 *     `--no-context-scale` skips it.
 *
 * chunks/s is chunks / wall time of the `codesift index` process (start to
 * exit: scan, submit or index, wait for the last file). A fresh cluster (and
 * index) serves every cluster run, started before the clock starts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type FakeRequest, promptText, startFakeLlmServer } from '@codesift/llm/testing';
import { runCli } from '../support/cli.js';
import { isAlive, startDevCluster } from '../support/processes.js';
import { syntheticRepo } from '../support/tree.js';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '1500' },
    ms: { type: 'string', default: '20' },
    'no-builtin': { type: 'boolean', default: false },
    'no-scale': { type: 'boolean', default: false },
    'no-context-scale': { type: 'boolean', default: false },
    'context-ms': { type: 'string', default: '50' },
    'context-concurrency': { type: 'string', default: '2' },
  },
});
const contextMs = Number(values['context-ms']);
const contextConcurrency = Number(values['context-concurrency']);
if (!(contextMs >= 0)) throw new Error(`--context-ms: ${values['context-ms']}`);
if (!Number.isInteger(contextConcurrency) || contextConcurrency < 1) {
  throw new Error(`--context-concurrency: ${values['context-concurrency']}`);
}
const nFiles = Number(values.files);
const msPerChunk = Number(values.ms);
if (!Number.isInteger(nFiles) || nFiles < 1) throw new Error(`--files: ${values.files}`);
if (!(msPerChunk >= 0)) throw new Error(`--ms: ${values.ms}`);

const work = mkdtempSync(path.join(tmpdir(), 'codesift-bench-cluster-'));
// The built-in model everywhere, never a local Ollama by accident.
const env: NodeJS.ProcessEnv = { OLLAMA_HOST: '' };

/** One sentence of prose per chunk, naming its file and lines (so it passes the checks). */
function situate(request: FakeRequest): object {
  const prompt = promptText(request);
  const file = /^File: (\S+)/m.exec(prompt)?.[1] ?? 'a file';
  const lines = /lines (\d+)-(\d+)\)/.exec(prompt);
  return { context: `Part of ${file}, lines ${lines?.[1]} to ${lines?.[2]}, in the benchmark.` };
}

interface Summary {
  filesIndexed: number;
  filesFailed: number;
  chunks: number;
  vectors: number;
  embedder: string | null;
  seconds: number;
  chunksPerSecond: number;
}

interface Run {
  mode: 'local' | 'cluster';
  embedder: string;
  replicas: number;
  files: number;
  chunks: number;
  vectors: number;
  wallSeconds: number;
  chunksPerSecond: number;
  /** The summary's own rate (local: chunk-to-commit phase; remote: after submission). */
  summaryChunksPerSecond: number;
  /** Messages (batches of files) each embedder replica acked (cluster runs). */
  embedderAcks?: number[];
  /** The same for each contextualizer replica (contextualizer scale-out runs). */
  contextualizerAcks?: number[];
}

async function timedIndex(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ summary: Summary; wallSeconds: number }> {
  const t0 = performance.now();
  const r = await runCli(['index', ...args, '--json', '-q'], {
    env: { ...env, ...extraEnv },
    timeoutMs: 900_000,
  });
  const wallSeconds = (performance.now() - t0) / 1000;
  if (r.code !== 0) throw new Error(`codesift index ${args.join(' ')} failed:\n${r.stderr}`);
  const summary = JSON.parse(r.stdout) as Summary;
  if (summary.filesFailed) throw new Error(`${summary.filesFailed} files failed`);
  return { summary, wallSeconds };
}

function toRun(
  mode: Run['mode'],
  embedder: string,
  replicas: number,
  r: { summary: Summary; wallSeconds: number },
): Run {
  const run: Run = {
    mode,
    embedder,
    replicas,
    files: r.summary.filesIndexed,
    chunks: r.summary.chunks,
    vectors: r.summary.vectors,
    wallSeconds: Math.round(r.wallSeconds * 100) / 100,
    chunksPerSecond: Math.round(r.summary.chunks / r.wallSeconds),
    summaryChunksPerSecond: Math.round(r.summary.chunksPerSecond),
  };
  console.error(`  ${JSON.stringify(run)}`);
  return run;
}

async function local(root: string, embedder: 'none' | 'builtin'): Promise<Run> {
  const db = path.join(work, `local-${embedder}.db`);
  const args = [root, '--index', db, ...(embedder === 'none' ? ['--no-vectors'] : [])];
  const run = toRun('local', embedder, 0, await timedIndex(args));
  rmSync(db, { force: true });
  return run;
}

/**
 * Starts `npm run cluster` in a fresh directory, indexes `root` once, stops
 * it. `llm`: a chat model for the contextualizer, with its replica count.
 */
async function cluster(
  root: string,
  embedder: string,
  replicas: number,
  llm?: { env: NodeJS.ProcessEnv; contextualizers: number },
): Promise<Run> {
  const name = `${embedder.replace(/\W/g, '_')}-${replicas}-${llm?.contextualizers ?? 0}`;
  const dir = path.join(work, `cluster-${name}`);
  const c = await startDevCluster({
    dir,
    cwd: work,
    embedder,
    embedderReplicas: replicas,
    contextualizerReplicas: llm?.contextualizers,
    env: { ...env, ...llm?.env },
    readyTimeoutMs: 90_000,
  });
  const { proc, exited, pids } = c;
  try {
    const indexPath = path.join(dir, 'index.db');
    const r = await timedIndex(['--remote', c.natsUrl, '--index', indexPath, root], c.natsEnv);
    proc.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) throw new Error(`cluster stopped with ${code}:\n${c.output()}`);
    const run = toRun('cluster', embedder, replicas, r);
    run.embedderAcks = stageAcks(dir, 'embedder', replicas);
    if (llm) run.contextualizerAcks = stageAcks(dir, 'contextualizer', llm.contextualizers);
    return run;
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    }
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
}

/** The `acked` count of each replica's "stopped" log line. */
function stageAcks(dir: string, stage: string, replicas: number): number[] {
  const names =
    replicas > 1 ? Array.from({ length: replicas }, (_, i) => `${stage}-${i + 1}`) : [stage];
  return names.map((name) => {
    try {
      const text = readFileSync(path.join(dir, 'logs', `${name}.log`), 'utf8');
      const line = text.split('\n').find((l) => l.includes('"msg":"stopped"'));
      return line ? Number(JSON.parse(line).acked) : Number.NaN;
    } catch {
      return Number.NaN;
    }
  });
}

interface Row {
  scenario: string;
  files: number;
  chunks: number;
  seconds: number;
  chunksPerSecond: number;
  note: string;
}

try {
  const root = path.join(work, `synthetic-${nFiles}`);
  console.error(`generating a synthetic repository of ${nFiles} files in ${root}`);
  syntheticRepo(root, nFiles);
  const rows: Row[] = [];
  const row = (scenario: string, r: Run, note = '') => {
    runs.push(r);
    rows.push({
      scenario,
      files: r.files,
      chunks: r.chunks,
      seconds: r.wallSeconds,
      chunksPerSecond: r.chunksPerSecond,
      note,
    });
  };
  const runs: Run[] = [];
  const ratios: { name: string; value: number; target: string; ok: boolean }[] = [];
  /** Scale-out targets: 3 replicas >= 2.5x the chunks/s of 1. */
  const scaleRatio = (name: string, one: Run, three: Run) => {
    const value = three.chunksPerSecond / one.chunksPerSecond;
    ratios.push({ name, value, target: '>= 2.5', ok: value >= 2.5 });
  };

  console.error('(a) overhead, keyword only');
  const localNone = await local(root, 'none');
  const clusterNone = await cluster(root, 'none', 1);
  row('local, keyword only', localNone);
  row('cluster, keyword only', clusterNone);
  const none = clusterNone.chunksPerSecond / localNone.chunksPerSecond;
  ratios.push({
    name: 'cluster / local, keyword only',
    value: none,
    target: '>= 0.70',
    ok: none >= 0.7,
  });

  if (!values['no-builtin']) {
    console.error('(a) overhead, built-in embedder (minutes)');
    const localBuiltin = await local(root, 'builtin');
    const clusterBuiltin = await cluster(root, 'builtin', 1);
    row('local, built-in embedder', localBuiltin);
    row('cluster, built-in embedder', clusterBuiltin);
    const b = clusterBuiltin.chunksPerSecond / localBuiltin.chunksPerSecond;
    ratios.push({
      name: 'cluster / local, built-in embedder',
      value: b,
      target: '>= 0.70',
      ok: b >= 0.7,
    });
  }

  if (!values['no-scale']) {
    console.error(`(b) scale-out, fixed:${msPerChunk} (1 then 3 embedder replicas)`);
    const fixed = `fixed:${msPerChunk}`;
    const one = await cluster(root, fixed, 1);
    const three = await cluster(root, fixed, 3);
    const ceiling = msPerChunk > 0 ? Math.round(1000 / msPerChunk) : Number.POSITIVE_INFINITY;
    row(`cluster, ${fixed}, 1 embedder`, one, `ceiling ${ceiling}/s`);
    row(
      `cluster, ${fixed}, 3 embedders`,
      three,
      `ceiling ${ceiling * 3}/s; batches per replica ${three.embedderAcks?.join(' / ')}`,
    );
    scaleRatio('3 / 1 embedder replicas', one, three);
  }

  if (!values['no-context-scale']) {
    console.error(
      `(c) contextualizer scale-out, fake model ${contextMs} ms/call, concurrency ${contextConcurrency} (1 then 3 replicas)`,
    );
    const fake = await startFakeLlmServer({
      mode: { kind: 'delay', ms: contextMs, after: { kind: 'good', answer: situate } },
    });
    try {
      const llm = (contextualizers: number) => ({
        contextualizers,
        env: {
          OLLAMA_HOST: fake.url,
          CODESIFT_LLM_MODEL: 'bench:fake',
          CODESIFT_LLM_CONCURRENCY: String(contextConcurrency),
        },
      });
      const one = await cluster(root, 'none', 1, llm(1));
      const three = await cluster(root, 'none', 1, llm(3));
      const ceiling = contextMs > 0 ? Math.round((1000 / contextMs) * contextConcurrency) : 0;
      row(`cluster, LLM contexts ${contextMs} ms, 1 contextualizer`, one, `ceiling ${ceiling}/s`);
      row(
        `cluster, LLM contexts ${contextMs} ms, 3 contextualizers`,
        three,
        `ceiling ${ceiling * 3}/s; batches per replica ${three.contextualizerAcks?.join(' / ')}`,
      );
      scaleRatio('3 / 1 contextualizer replicas', one, three);
    } finally {
      await fake.close();
    }
  }

  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  const machine = `${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.versions.node}`;
  const table = [
    '| scenario | files | chunks | wall s | chunks/s | note |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.files} | ${r.chunks} | ${r.seconds} | ${r.chunksPerSecond} | ${r.note} |`,
    ),
  ].join('\n');
  const ratioTable = [
    '| ratio | value | target | met |',
    '|---|---:|---|---|',
    ...ratios.map(
      (r) => `| ${r.name} | ${r.value.toFixed(2)} | ${r.target} | ${r.ok ? 'yes' : 'NO'} |`,
    ),
  ].join('\n');
  console.log(`Machine: ${machine}\n\n${table}\n\n${ratioTable}`);
  mkdirSync('bench-results', { recursive: true });
  writeFileSync(
    path.join('bench-results', 'cluster.json'),
    JSON.stringify(
      { machine, files: nFiles, msPerChunk, contextMs, contextConcurrency, rows, ratios, runs },
      null,
      2,
    ),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
