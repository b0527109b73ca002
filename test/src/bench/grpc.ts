/**
 * `node test/dist/bench/grpc.js`: query throughput and latency of
 * `codesift serve` over gRPC. Builds a synthetic repository (~7k chunks),
 * indexes it with the real CLI, starts the real server and drives it with
 * concurrent clients (each its own connection), each sending one query after
 * another for a fixed time. Prints a markdown table and writes
 * bench-results/grpc.json.
 *
 *   node test/dist/bench/grpc.js                      # hybrid and keyword-only, 8 clients, 10 s
 *   node test/dist/bench/grpc.js --no-vectors         # keyword index only (no model, quick build)
 *   node test/dist/bench/grpc.js --work /tmp/gb       # keep and reuse the repository and index
 *   node test/dist/bench/grpc.js --clients 16 --seconds 20 --modules 2500
 *   node test/dist/bench/grpc.js --threads 0,2        # each scenario per search-thread count
 *   node test/dist/bench/grpc.js --address 127.0.0.1:50051   # drive a running server (e.g.
 *       the cluster's codesift-query after `npm run cluster` and `codesift index --remote`
 *       of the same synthetic repository: --modules must match what it indexed)
 *
 * Targets: >= 200 q/s, and (the cluster issue's query target) p50 < 20 ms
 * and p99 < 60 ms at 8 clients.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connectCodesift } from '@codesift/grpc';
import { collect, runCli, startCli } from '../support/cli.js';
import { syntheticRepo } from '../support/tree.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '10' },
    modules: { type: 'string', default: '2500' },
    'no-vectors': { type: 'boolean', default: false },
    work: { type: 'string' },
    threads: { type: 'string' },
    address: { type: 'string' },
  },
});
/** `codesift serve --threads` values to compare; none given: the server's default. */
const threadCounts: (string | undefined)[] = values.threads
  ? values.threads.split(',').map((t) => t.trim())
  : [undefined];
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const modules = Number(values.modules);
const vectors = !values['no-vectors'];
const TARGET_QPS = 200;
const TARGET_P50_MS = 20;
const TARGET_P99_MS = 60;

const work = values.work
  ? path.resolve(values.work)
  : mkdtempSync(path.join(tmpdir(), 'codesift-bench-grpc-'));
const root = path.join(work, vectors ? 'repo' : 'repo-keyword');
const indexDir = path.join(root, '.codesift');

/** Identifier and natural-language queries in the proportions a mixed workload has. */
function queryFor(n: number): string {
  const i = (n * 7919) % modules;
  const forms = [
    `OrderService${i - (i % 4)}`,
    `parseAmount${i - (i % 4)}`,
    `validate_payload_${i - (i % 4) + 1}`,
    `NewStore${i - (i % 4) + 2}`,
    'where are orders added and listeners notified',
    'concurrency safe key value store',
    'how do I configure request timeouts',
    'check that a payload has the required fields',
    'parse a money amount from text',
    `Handler${i - (i % 4) + 1} get returns stored value as JSON`,
  ];
  return forms[n % forms.length]!;
}

async function buildIndex(): Promise<{ chunks: number; seconds: number; reused: boolean }> {
  if (existsSync(path.join(indexDir, 'index.db'))) {
    return { chunks: Number.NaN, seconds: 0, reused: true };
  }
  syntheticRepo(root, modules);
  const args = ['index', root, '--json', '--quiet', ...(vectors ? [] : ['--no-vectors'])];
  const r = await runCli(args, { timeoutMs: 60 * 60_000 });
  if (r.code !== 0) throw new Error(`codesift index failed:\n${r.stderr}`);
  const s = JSON.parse(r.stdout);
  return { chunks: s.totals.chunks, seconds: s.seconds, reused: false };
}

async function startServer(extra: string[]): Promise<{ child: ChildProcess; address: string }> {
  const child = startCli([
    'serve',
    '--port',
    '0',
    '--json',
    '--index',
    indexDir,
    '--insecure-no-auth',
    ...extra,
  ]);
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)).address);
    });
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${err}`)));
  });
  return { child, address };
}

interface Row {
  scenario: string;
  clients: number;
  seconds: number;
  queries: number;
  errors: number;
  qps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  target: string;
  ok: boolean;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function drive(scenario: string, address: string): Promise<Row> {
  const conns = Array.from({ length: clients }, () => connectCodesift(address));
  try {
    // Warm-up: connections, the query embedder, SQLite page cache.
    await Promise.all(
      conns.map(async (c, k) => {
        for (let j = 0; j < 10; j++) await c.search.search({ query: queryFor(k * 10 + j) });
      }),
    );
    const latencies: number[] = [];
    let errors = 0;
    let sent = 0;
    const end = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      conns.map(async (c) => {
        while (performance.now() < end) {
          const q = queryFor(sent++);
          const start = performance.now();
          try {
            await c.search.search({ query: q, limit: 10 }, { deadlineMs: 5000 });
            latencies.push(performance.now() - start);
          } catch {
            errors++;
          }
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const qps = latencies.length / elapsed;
    return {
      scenario,
      clients,
      seconds: round(elapsed),
      queries: latencies.length,
      errors,
      qps: round(qps),
      p50: round(percentile(latencies, 50)),
      p90: round(percentile(latencies, 90)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies.at(-1) ?? Number.NaN),
      target: `≥ ${TARGET_QPS} q/s, p50 < ${TARGET_P50_MS}, p99 < ${TARGET_P99_MS}`,
      ok:
        qps >= TARGET_QPS &&
        errors === 0 &&
        percentile(latencies, 50) < TARGET_P50_MS &&
        percentile(latencies, 99) < TARGET_P99_MS,
    };
  } finally {
    for (const c of conns) c.close();
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

async function main(): Promise<void> {
  if (values.address) {
    // A running server: nothing to build or start; its index decides hybrid or keyword only.
    const row = await drive(`server at ${values.address}`, values.address);
    console.log(
      [
        `running server ${values.address}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), client and server on one machine`,
        '',
        '| scenario | clients | queries | errors | q/s | p50 ms | p90 ms | p99 ms | max ms | target | |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
        `| ${row.scenario} | ${row.clients} | ${row.queries} | ${row.errors} | ${row.qps} | ${row.p50} | ${row.p90} | ${row.p99} | ${row.max} | ${row.target} | ${row.ok ? 'ok' : 'MISSED'} |`,
      ].join('\n'),
    );
    if (!values.work) rmSync(work, { recursive: true, force: true });
    return;
  }
  console.error(
    `building a ${modules}-module repository (${vectors ? 'with' : 'without'} vectors) in ${work}`,
  );
  const built = await buildIndex();
  console.error(
    built.reused
      ? 'reusing the existing index'
      : `indexed ${built.chunks} chunks in ${built.seconds.toFixed(1)} s`,
  );
  const scenarios: [string, string[]][] = vectors
    ? [
        ['hybrid (BM25 + vectors)', []],
        ['keyword only', ['--keyword-only']],
      ]
    : [['keyword only', []]];
  const rows: Row[] = [];
  const runs = scenarios.flatMap(([name, extra]) =>
    threadCounts.map((t): [string, string[]] =>
      t === undefined ? [name, extra] : [`${name}, ${t} threads`, [...extra, '--threads', t]],
    ),
  );
  for (const [name, extra] of runs) {
    const { child, address } = await startServer(extra);
    const exited = collect(child, 120_000);
    try {
      console.error(`${name}: ${clients} clients for ${seconds} s against ${address}`);
      rows.push(await drive(name, address));
    } finally {
      child.kill('SIGTERM');
      const r = await exited;
      if (r.code !== 0) console.error(`server exited with ${r.code}:\n${r.stderr}`);
    }
  }
  const header =
    '| scenario | clients | queries | errors | q/s | p50 ms | p90 ms | p99 ms | max ms | target | |';
  const lines = [
    `codesift serve, ${built.reused ? 'reused index' : `${built.chunks} chunks`}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), client and server on one machine`,
    '',
    header,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.clients} | ${r.queries} | ${r.errors} | ${r.qps} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.target} | ${r.ok ? 'ok' : 'MISSED'} |`,
    ),
  ];
  console.log(lines.join('\n'));
  mkdirSync('bench-results', { recursive: true });
  writeFileSync(
    path.join('bench-results', 'grpc.json'),
    `${JSON.stringify({ chunks: built.chunks, cpus: cpus().length, rows }, null, 2)}\n`,
  );
  if (!values.work) rmSync(work, { recursive: true, force: true });
}

await main();
