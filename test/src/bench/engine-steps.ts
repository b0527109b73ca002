/**
 * `node test/dist/bench/engine-steps.js`: the gRPC benchmark's query mix
 * searched in process, step by step (each response's `timings`), by this
 * checkout's engine and, with --baseline, by another built checkout's
 * engine on the same index in the same process, alternating query by
 * query (the order swapped every query), so both see the same machine.
 * Also checks that both answer exactly the same results.
 *
 *   node test/dist/bench/engine-steps.js --index /tmp/gb/repo/.codesift --baseline /work/prev
 *   node test/dist/bench/engine-steps.js --index /tmp/gb/repo-keyword/.codesift --keyword-only
 *
 * The index: the gRPC benchmark's (`grpc.js --work /tmp/gb` builds it);
 * --modules must match it. Or any index with --query-file: a JSON Query[]
 * (the scale benchmark's queries.json), searched in turn, --category
 * keeping one category of it:
 *
 *   node test/dist/bench/engine-steps.js --index $CODESIFT_BENCH_CACHE/scale-100k/index.db \
 *     --query-file $CODESIFT_BENCH_CACHE/scale-100k/queries.json --category long --baseline /work/prev
 *
 * The model runs on one thread per engine.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { SearchEngine } from '@codesift/search';
import { openLocalEngine } from '@codesift/search';
import { mixedQuery } from './grpc-queries.js';
import type { Query } from './query-set.js';

const { values } = parseArgs({
  options: {
    index: { type: 'string' },
    baseline: { type: 'string' },
    queries: { type: 'string', default: '300' },
    modules: { type: 'string', default: '2500' },
    'keyword-only': { type: 'boolean', default: false },
    'query-file': { type: 'string' },
    category: { type: 'string' },
  },
});
if (!values.index) {
  console.error('usage: engine-steps.js --index <index> [--baseline <checkout>] [--queries N]');
  process.exit(2);
}
const n = Number(values.queries);
const modules = Number(values.modules);
const fromFile = values['query-file']
  ? (JSON.parse(readFileSync(values['query-file'], 'utf8')) as Query[]).filter(
      (q) => values.category === undefined || q.category === values.category,
    )
  : null;
if (fromFile?.length === 0) {
  console.error(`no query of category ${values.category} in ${values['query-file']}`);
  process.exit(2);
}
/** The i-th request: the file's queries in turn, or the gRPC benchmark's mix. */
const requestAt = (i: number) =>
  fromFile ? fromFile[i % fromFile.length]!.request : { query: mixedQuery(i, modules), limit: 10 };
const indexPath = path.resolve(values.index, values.index.endsWith('.db') ? '' : 'index.db');
const options = {
  indexPath,
  env: { ...process.env, CODESIFT_EMBED_THREADS: '1' },
  ...(values['keyword-only'] ? { embedder: null } : {}),
};

const engines: { label: string; engine: SearchEngine }[] = [];
if (values.baseline) {
  const other = path.join(path.resolve(values.baseline), 'libs', 'search', 'dist', 'index.js');
  const mod = (await import(other)) as { openLocalEngine: typeof openLocalEngine };
  engines.push({ label: 'baseline', engine: await mod.openLocalEngine(options) });
}
engines.push({ label: 'this checkout', engine: await openLocalEngine(options) });

const WARM_UP = 30;
const sums = new Map(engines.map((e) => [e.label, new Map<string, number>()]));
let differ = 0;
for (let i = -WARM_UP; i < n; i++) {
  const request = requestAt(i + WARM_UP);
  const order = i % 2 === 0 ? engines : [...engines].reverse();
  const answers = new Map<string, string>();
  for (const { label, engine } of order) {
    const t = performance.now();
    const c0 = process.cpuUsage();
    const r = await engine.search(request);
    const wall = performance.now() - t;
    // The process's CPU (every thread, GC helpers included): on a loaded machine
    // it moves far less than wall time, since nothing else runs in this process.
    const used = process.cpuUsage(c0);
    const cpu = (used.user + used.system) / 1000;
    answers.set(
      label,
      JSON.stringify(r.results.map((x) => [x.path, x.startLine, x.endLine, x.score, x.snippet])),
    );
    if (i < 0) continue;
    const sum = sums.get(label)!;
    for (const [step, ms] of Object.entries({ ...r.timings, wall, cpu })) {
      sum.set(step, (sum.get(step) ?? 0) + ms);
    }
  }
  if (new Set(answers.values()).size > 1) differ++;
}

const steps = [...new Set([...sums.values()].flatMap((m) => [...m.keys()]))];
const lines = [
  `| ms per search (mean of ${n}) | ${engines.map((e) => e.label).join(' | ')} |${engines.length === 2 ? ' ratio |' : ''}`,
  `|---|${engines.map(() => '---:').join('|')}|${engines.length === 2 ? '---:|' : ''}`,
];
for (const step of steps) {
  const per = engines.map((e) => (sums.get(e.label)!.get(step) ?? Number.NaN) / n);
  const ratio = per.length === 2 ? ` ${(per[1]! / per[0]!).toFixed(2)} |` : '';
  lines.push(`| ${step} | ${per.map((v) => v.toFixed(2)).join(' | ')} |${ratio}`);
}
console.log(lines.join('\n'));
if (engines.length === 2) {
  console.log(`\nqueries answered differently: ${differ} of ${n + WARM_UP}`);
}
for (const { engine } of engines) await engine.close();
if (differ > 0) process.exitCode = 1;
