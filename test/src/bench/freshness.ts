/**
 * Freshness benchmark: how long after a saved edit `codesift watch` makes
 * it searchable, and what the watch costs while nothing changes.
 *
 *   node test/dist/bench/freshness.js                     # 5,000 files, keyword-only index
 *   node test/dist/bench/freshness.js --files 1000 --vectors
 *   node test/dist/bench/freshness.js --server mcp        # the watch inside `codesift mcp`
 *
 * The watch is the real CLI in a child process over a synthetic repository
 * (test/src/support/tree.ts) whose index is built first. Edit latency: this
 * process writes a new identifier into one file and polls a search engine
 * over the same index (as `codesift mcp` or `serve` would) until a hit
 * shows it; the time from the write to that answer, over several edits.
 * Idle CPU: the watch process's user + system CPU time (/proc, Linux only)
 * over a quiet window, as a share of one core. `npm run bench` runs it too.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLocalEngine } from '@codesift/search';
import { cliBin, startCli } from '../support/cli.js';

/** The process that watches: `codesift watch`, or the watch `codesift mcp` runs beside its server. */
export type WatchingServer = 'watch' | 'mcp';

export interface FreshnessResult {
  files: number;
  vectors: boolean;
  server: WatchingServer;
  edits: number;
  /** Milliseconds from a saved edit to a search that finds it. */
  latencyMs: { p50: number; max: number; all: number[] };
  /** CPU time of the idle watch process over the window, as % of one core; null off Linux. */
  idleCpuPercent: number | null;
  idleWindowSeconds: number;
  /** Files the watch process's catch-up run found in the index. */
  watchedFiles: number;
}

/**
 * Watches `root` (already indexed into `indexPath`) and measures. The files
 * edited are the first `edits` TypeScript files under `root/src`.
 */
export async function measureFreshness(options: {
  root: string;
  indexPath: string;
  vectors: boolean;
  files: number;
  edits?: number;
  idleSeconds?: number;
  server?: WatchingServer;
}): Promise<FreshnessResult> {
  const edits = options.edits ?? 10;
  const idleSeconds = options.idleSeconds ?? 10;
  const server = options.server ?? 'watch';
  const child =
    server === 'watch'
      ? startCli(
          [
            'watch',
            '--json',
            '--index',
            options.indexPath,
            options.root,
            ...(options.vectors ? [] : ['--no-vectors']),
          ],
          { cwd: options.root },
        )
      : // stdin stays open: an MCP server over stdio ends when its client closes it.
        spawn(
          process.execPath,
          [
            cliBin,
            'mcp',
            '--index',
            options.indexPath,
            '--root',
            options.root,
            ...(options.vectors ? [] : ['--keyword-only']),
          ],
          { cwd: options.root, env: { ...process.env, NO_COLOR: '1' }, stdio: 'pipe' },
        );
  let err = '';
  const events: Record<string, unknown>[] = [];
  child.stderr?.on('data', (d) => {
    err += d;
    // codesift mcp says on stderr when its watch is ready, with no file count.
    if (server === 'mcp' && /codesift mcp: watching /.test(String(d))) {
      events.push({ event: 'watching' });
    }
  });
  let buf = '';
  child.stdout?.on('data', (d) => {
    if (server === 'mcp') return; // the protocol channel, not events
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      events.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
  });
  const until = async (ok: () => boolean, ms: number, what: string) => {
    const end = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`${what}\n${err}`);
      await sleep(20);
    }
  };
  const engine = await openLocalEngine({
    indexPath: options.indexPath,
    embedder: null,
  });
  try {
    await until(
      () => events.some((e) => e.event === 'watching'),
      600_000,
      'the watch never started',
    );
    const watching = events.find((e) => e.event === 'watching') as {
      totals?: { files: number };
    };

    // Idle: nothing changes; the process should sleep in the kernel.
    await sleep(2000);
    const cpu0 = cpuSeconds(child.pid!);
    await sleep(idleSeconds * 1000);
    const cpu1 = cpuSeconds(child.pid!);
    const idleCpuPercent =
      cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) / idleSeconds) * 100;

    const targets = editableFiles(options.root, edits);
    const latencies: number[] = [];
    for (let i = 0; i < targets.length; i++) {
      const file = targets[i]!;
      const token = `freshnessprobe${i}x${Date.now().toString(36)}`;
      const text = readFileSync(file, 'utf8');
      const t0 = performance.now();
      writeFileSync(file, `${text}\nexport function ${token}() { return ${i}; }\n`);
      for (;;) {
        const res = await engine.search({ query: token, keywordOnly: true, limit: 3 });
        if (res.results.some((r) => r.snippet.includes(token) && !r.stale)) break;
        if (performance.now() - t0 > 30_000) throw new Error(`edit ${i} not searchable in 30 s`);
        // Not tighter: on a small machine the polling would take CPU from the watch.
        await sleep(20);
      }
      latencies.push(Math.round(performance.now() - t0));
      await sleep(300);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      files: options.files,
      vectors: options.vectors,
      server,
      edits: latencies.length,
      latencyMs: {
        p50: sorted[Math.floor(sorted.length / 2)]!,
        max: sorted.at(-1)!,
        all: latencies,
      },
      idleCpuPercent: idleCpuPercent === null ? null : Math.round(idleCpuPercent * 100) / 100,
      idleWindowSeconds: idleSeconds,
      watchedFiles: watching.totals?.files ?? 0,
    };
  } finally {
    await engine.close();
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('close', resolve));
  }
}

/** User + system CPU seconds of a process, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / clockTicks();
  } catch {
    return null;
  }
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  return ticksPerSecond;
}

function editableFiles(root: string, n: number): string[] {
  // syntheticRepo writes src/pkg<k>/service<i>.ts for i ≡ 0 (mod 4).
  return Array.from({ length: n }, (_, k) =>
    path.join(root, 'src', `pkg${(k * 4) % 25}`, `service${k * 4}.ts`),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Standalone: builds the repository and its index, then measures. */
async function main(): Promise<void> {
  const { parseArgs } = await import('node:util');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir, cpus } = await import('node:os');
  const { syntheticRepo } = await import('../support/tree.js');
  const { runCli } = await import('../support/cli.js');
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '5000' },
      vectors: { type: 'boolean', default: false },
      edits: { type: 'string', default: '10' },
      idle: { type: 'string', default: '10' },
      server: { type: 'string', default: 'watch' },
    },
  });
  const files = Number(values.files);
  if (values.server !== 'watch' && values.server !== 'mcp') {
    throw new Error(`--server must be watch or mcp, got ${values.server}`);
  }
  const work = mkdtempSync(path.join(tmpdir(), 'codesift-bench-fresh-'));
  try {
    const root = path.join(work, 'repo');
    syntheticRepo(root, files);
    const indexPath = path.join(work, 'index.db');
    process.stderr.write(
      `indexing ${files} files (${values.vectors ? 'built-in model' : 'keyword only'})\n`,
    );
    const built = await runCli(
      ['index', '--quiet', '--index', indexPath, ...(values.vectors ? [] : ['--no-vectors']), root],
      { timeoutMs: 3_600_000 },
    );
    if (built.code !== 0) throw new Error(built.stderr);
    const result = await measureFreshness({
      root,
      indexPath,
      vectors: values.vectors,
      files,
      edits: Number(values.edits),
      idleSeconds: Number(values.idle),
      server: values.server,
    });
    process.stderr.write(
      `machine: ${cpus().length} cores (${cpus()[0]?.model}), Node ${process.versions.node}\n`,
    );
    console.log(JSON.stringify(result));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
