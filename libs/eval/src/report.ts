import type { AggregateScores } from './metrics.js';
import type { EvalReport, GroupScores } from './runner.js';

const COLUMNS: { title: string; width: number; get: (s: AggregateScores) => string }[] = [
  { title: 'n', width: 4, get: (s) => String(s.count) },
  { title: 'Acc@1', width: 6, get: (s) => s.acc1.toFixed(3) },
  { title: 'Acc@5', width: 6, get: (s) => s.acc5.toFixed(3) },
  { title: 'Acc@10', width: 6, get: (s) => s.acc10.toFixed(3) },
  { title: 'R@5', width: 6, get: (s) => s.recall5.toFixed(3) },
  { title: 'R@10', width: 6, get: (s) => s.recall10.toFixed(3) },
  { title: 'MRR@10', width: 6, get: (s) => s.mrr10.toFixed(3) },
  { title: 'nDCG@10', width: 7, get: (s) => s.ndcg10.toFixed(3) },
  { title: 'p50 ms', width: 8, get: (s) => s.latencyMs.median.toFixed(1) },
  { title: 'p95 ms', width: 8, get: (s) => s.latencyMs.p95.toFixed(1) },
];

const GROUP_WIDTH = 26;
const SYSTEM_WIDTH = 9;

/** The human report: codesift and the baseline side by side, overall, per class and per repository. */
export function formatReport(report: EvalReport): string {
  const out: string[] = [];
  const e = report.engine;
  out.push(
    `codesift eval: ${report.set ?? '(query set)'} — ${report.overall.codesift.count} queries, field '${report.queryField}'`,
    `engine:   ${e.vectors ? `hybrid, embedder ${e.embedder}` : 'keyword only'}, fusion ${e.fusion}`,
    `baseline: ${report.baseline ? `plain BM25 over whole files (k1=${report.baseline.k1}, b=${report.baseline.b})` : 'off'}`,
    `machine:  ${report.machine.cpus} × ${report.machine.cpuModel}, ${report.machine.memoryGiB} GiB, node ${report.machine.node}`,
    `checkouts: ${summariseCheckouts(report)}; total ${report.seconds.toFixed(1)}s`,
    '',
    header(),
  );
  out.push(...groupLines('overall', report.overall));
  const sections: [string, Record<string, GroupScores>][] = [
    ['by class', report.byClass],
    ['by repository', report.byRepo],
  ];
  for (const [title, groups] of sections) {
    const entries = Object.entries(groups);
    if (entries.length === 0) continue;
    out.push('', title);
    for (const [name, g] of entries) out.push(...groupLines(`  ${name}`, g));
  }
  const misses = report.queries.filter((q) => q.codesift.firstRelevantRank === null);
  if (misses.length > 0) {
    out.push('', `codesift misses (no relevant file in the top 10): ${misses.length}`);
    for (const q of misses.slice(0, 20)) {
      const top =
        q.codesift.files[0] ?? (q.codesift.error ? `error: ${q.codesift.error}` : 'nothing');
      out.push(`  ${q.id}: wanted ${q.relevantFiles.join(', ')}; got ${top}`);
    }
    if (misses.length > 20) out.push(`  … and ${misses.length - 20} more (see --json)`);
  }
  return `${out.join('\n')}\n`;
}

function header(): string {
  return `${''.padEnd(GROUP_WIDTH + SYSTEM_WIDTH)}${COLUMNS.map((c) => c.title.padStart(c.width + 1)).join('')}`;
}

function groupLines(label: string, g: GroupScores): string[] {
  const lines = [row(label, 'codesift', g.codesift)];
  if (g.bm25) lines.push(row('', 'bm25', g.bm25));
  return lines;
}

function row(group: string, system: string, s: AggregateScores): string {
  const name = group.length > GROUP_WIDTH - 1 ? `${group.slice(0, GROUP_WIDTH - 2)}…` : group;
  return `${name.padEnd(GROUP_WIDTH)}${system.padEnd(SYSTEM_WIDTH)}${COLUMNS.map((c) => c.get(s).padStart(c.width + 1)).join('')}`;
}

function summariseCheckouts(report: EvalReport): string {
  const counts = new Map<string, number>();
  for (const c of report.checkouts) counts.set(c.status, (counts.get(c.status) ?? 0) + 1);
  const seconds = report.checkouts.reduce((s, c) => s + c.indexSeconds, 0);
  const parts = [...counts.entries()].map(([k, n]) => `${n} ${k}`);
  return `${report.checkouts.length} (${parts.join(', ')}), indexing ${seconds.toFixed(1)}s`;
}
