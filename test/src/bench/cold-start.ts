/**
 * `node test/dist/bench/cold-start.js`: how long one `codesift search` takes
 * as a new process (start-up, opening the index, one query, exit), the
 * number a person or an agent calling the CLI pays every time.
 *
 *   node test/dist/bench/cold-start.js --index <dir or .db>            # 10 runs per query
 *   node test/dist/bench/cold-start.js --index <db> --baseline /work/prev --runs 15
 *       # the same searches by another built checkout's CLI, run for run in turn
 *
 * Each run reports wall time and the CPU the child used (user + system, all
 * its threads): on a machine shared with other work the wall time moves with
 * the load, the CPU much less. The queries: a natural-language question (on
 * an index with vectors it loads the model), an identifier (no vector side)
 * and the question with --keyword-only; with --filter, the question with
 * each filter's options (`--filter="--lang python" --filter="--path src/**"`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cliBin } from '../support/cli.js';

const { values } = parseArgs({
  options: {
    index: { type: 'string' },
    baseline: { type: 'string' },
    runs: { type: 'string', default: '10' },
    question: { type: 'string', default: 'parse command line arguments' },
    identifier: { type: 'string', default: 'OrderService12' },
    // Filtered questions (repeatable): each adds a case, e.g. --filter "--lang python".
    filter: { type: 'string', multiple: true, default: [] },
  },
});
if (!values.index) {
  console.error(
    'usage: cold-start.js --index <dir or .db> [--baseline <checkout>] [--runs N] [--filter="<search options>"]...',
  );
  process.exit(2);
}
const runs = Number(values.runs);
const trees = [
  ...(values.baseline
    ? [
        {
          label: 'baseline',
          bin: path.join(path.resolve(values.baseline), 'services', 'cli', 'bin', 'codesift.js'),
        },
      ]
    : []),
  { label: 'this checkout', bin: cliBin },
];
const cases: { what: string; args: string[] }[] = [
  { what: 'question', args: [values.question] },
  { what: 'identifier', args: [values.identifier] },
  { what: 'question, --keyword-only', args: ['--keyword-only', values.question] },
  ...values.filter.map((f) => ({
    what: `question, ${f}`,
    args: [...f.split(' ').filter(Boolean), values.question],
  })),
];

/** One `codesift search`, in wall ms. */
function once(bin: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, 'search', '--index', values.index!, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`codesift search failed: ${r.stderr}`);
  return wall;
}

/**
 * CPU ms (user + system) of the children this process has waited for so
 * far: /proc/self/stat's cutime and cstime (fields 16 and 17, in clock ticks
 * of 1/100 s). NaN off Linux.
 */
function childrenCpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '—');

const load0 = loadavg()[0]!;
const lines = [
  '| query | checkout | runs | wall median ms | wall min ms | CPU median ms |',
  '|---|---|---:|---:|---:|---:|',
];
for (const c of cases) {
  const walls = new Map<string, number[]>(trees.map((t) => [t.label, []]));
  const cpus = new Map<string, number[]>(trees.map((t) => [t.label, []]));
  // A warm-up each: the page cache, and Node's compile cache where a checkout keeps one.
  for (const t of trees) once(t.bin, c.args);
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? trees : [...trees].reverse();
    for (const t of order) {
      const c0 = childrenCpuMs();
      walls.get(t.label)!.push(once(t.bin, c.args));
      cpus.get(t.label)!.push(childrenCpuMs() - c0);
    }
  }
  for (const t of trees) {
    const w = walls.get(t.label)!;
    lines.push(
      `| ${c.what} | ${t.label} | ${runs} | ${fmt(median(w))} | ${fmt(Math.min(...w))} | ${fmt(median(cpus.get(t.label)!))} |`,
    );
  }
  if (trees.length === 2) {
    const [b, n] = trees.map((t) => median(walls.get(t.label)!));
    const [bc, nc] = trees.map((t) => median(cpus.get(t.label)!));
    lines.push(
      `| ${c.what} | ratio this / baseline | | ${(n! / b!).toFixed(2)} | | ${(nc! / bc!).toFixed(2)} |`,
    );
  }
}
console.log(
  `codesift search cold start, index ${values.index}, load average ${load0.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end\n`,
);
console.log(lines.join('\n'));
