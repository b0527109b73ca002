/**
 * The scale benchmark's queries on two built trees in one process, each
 * query timed on both back to back (the order alternating), so that load
 * from other work falls on both alike. scale.ts's --baseline runs the trees
 * one after the other, minutes apart; on a shared machine whose load moves
 * that much, its ratios move with the load. Prints a Markdown table of p50
 * and p99 per category and their ratios (first tree / second).
 *
 *   node test/dist/bench/scale-ab.js <tree> <baseline tree> <corpus dir> [rounds]
 *
 * `<corpus dir>` is the scale corpus directory (`$CODESIFT_BENCH_CACHE/scale-100k`),
 * holding index.db and the queries.json the scale benchmark wrote.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as SearchLib from '@codesift/search';
import { percentile, type Query } from './query-set.js';

const [treeA, treeB, dir, roundsArg] = process.argv.slice(2);
if (!treeA || !treeB || !dir) {
  throw new Error('usage: scale-ab.js <tree> <baseline tree> <corpus dir> [rounds]');
}
const rounds = Number(roundsArg ?? 3);
if (!(Number.isInteger(rounds) && rounds > 0)) throw new Error(`rounds: ${roundsArg}`);

const queries = JSON.parse(readFileSync(path.join(dir, 'queries.json'), 'utf8')) as Query[];
const open = async (tree: string) => {
  const lib = (await import(
    pathToFileURL(path.join(tree, 'libs', 'search', 'dist', 'index.js')).href
  )) as typeof SearchLib;
  return lib.openLocalEngine({ indexPath: path.join(dir, 'index.db') });
};
const engines = [await open(treeA), await open(treeB)];
for (const q of queries) for (const e of engines) await e.search(q.request); // warm-up

const times = [new Map<string, number[]>(), new Map<string, number[]>()];
let turn = 0;
for (let r = 0; r < rounds; r++) {
  for (const q of queries) {
    const order = turn++ % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order) {
      const t = performance.now();
      await engines[side]!.search(q.request);
      const ms = performance.now() - t;
      for (const c of [q.category, 'all']) {
        const list = times[side]!.get(c) ?? [];
        list.push(ms);
        times[side]!.set(c, list);
      }
    }
  }
}
for (const e of engines) await e.close();

const stats = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
const lines = [
  '| queries | n | p50 ms | p99 ms | baseline p50 | baseline p99 | p50 ratio | p99 ratio |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
for (const [category, list] of times[0]!) {
  const a = stats(list);
  const b = stats(times[1]!.get(category)!);
  lines.push(
    `| ${category} | ${list.length} | ${a.p50.toFixed(1)} | ${a.p99.toFixed(1)} | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} | ${(a.p50 / b.p50).toFixed(2)} | ${(a.p99 / b.p99).toFixed(2)} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
