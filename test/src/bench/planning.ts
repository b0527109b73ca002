/**
 * Query planning overhead benchmark (not a test):
 *
 *   node test/dist/bench/planning.js [--rounds 200]
 *
 * Measures what planning adds to a search: parse (@codesift/query
 * parseQuery) plus plan (planQuery), exactly as the engine runs them
 * (planSearch), over a mixed query set: identifiers, codes, questions,
 * filtered queries, short stack traces and 20 KB pasted reports. No index
 * and no model are involved. Prints p50/p99 per query kind and overall, as
 * markdown. The budget is < 1 ms p50 overall.
 */
import { parseArgs } from 'node:util';
import { plannerConfigFrom, planSearch } from '@codesift/search';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } });
const rounds = Math.max(1, Number(values.rounds));

function report(seed: number): string {
  const frames = [
    `TypeError: Cannot read properties of undefined (reading 'push') [${seed}]`,
    '    at Graph.addEdge (/app/src/graph/graph.ts:14:17)',
    '    at loadEdges (/app/src/graph/load.ts:33:9)',
    '    at async Promise.all (index 0)',
    '    at Object.<anonymous> (/app/node_modules/runner/index.js:5:1)',
  ].join('\n');
  const prose =
    'After upgrading to 2.3 the importer drops edges when two modules import each other; ' +
    'retrying with a smaller batch does not help and the log shows the same error each time. ';
  let text = `Importer loses edges on cyclic imports (#${seed})\n\n`;
  while (text.length < 20 * 1024) text += `${prose}\n${frames}\n`;
  return text.slice(0, 20 * 1024);
}

const PY_TRACE = `Traceback (most recent call last):
  File "app/handlers/orders.py", line 41, in create_order
    amount = parse_amount(payload["amount"])
  File "app/money.py", line 12, in parse_amount
    return Decimal(text)
decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]`;

const SETS: Record<string, string[]> = {
  identifier: [
    'D40',
    'OllamaEmbedder',
    'parse_amount',
    'Graph.addEdge',
    'src/scanner/walk.ts',
    '30 CFR 75.1725',
  ],
  mixed: [
    'Tell me about D40',
    'where is OllamaEmbedder implemented',
    'how is addEdge tested',
    '"pump station" D41',
  ],
  question: [
    'how are edges inserted into the graph',
    'Search function',
    'retry a failing operation with exponential backoff',
    'where do we decide which files are binary and skip them',
  ],
  filtered: ['retry backoff lang:go -path:vendor', 'config loading path:libs/** -lang:md'],
  trace: [PY_TRACE],
  report20k: [report(1), report(2), report(3)],
};

const config = plannerConfigFrom();
const run = (q: string): number => {
  const t0 = performance.now();
  planSearch({ query: q }, config);
  return performance.now() - t0;
};

// Warm up the JIT and the analyzers' caches as a long-running server would be.
for (let i = 0; i < 50; i++) for (const qs of Object.values(SETS)) for (const q of qs) run(q);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const all: number[] = [];
const rows: string[] = [];
for (const [kind, qs] of Object.entries(SETS)) {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) for (const q of qs) times.push(run(q));
  all.push(...times);
  times.sort((a, b) => a - b);
  const chars = Math.round(qs.reduce((n, q) => n + q.length, 0) / qs.length);
  rows.push(
    `| ${kind} | ${qs.length} | ${chars} | ${pct(times, 50).toFixed(4)} | ${pct(times, 99).toFixed(4)} |`,
  );
}
// The overall set is weighted as a mixed workload: every query of every kind equally often.
all.sort((a, b) => a - b);
process.stdout.write(
  [
    `parse + plan, ${rounds} rounds per query, Node ${process.version}`,
    '',
    '| kind | queries | avg chars | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...rows,
    `| **all** | ${Object.values(SETS).flat().length} | | **${pct(all, 50).toFixed(4)}** | **${pct(all, 99).toFixed(4)}** |`,
    '',
  ].join('\n'),
);
