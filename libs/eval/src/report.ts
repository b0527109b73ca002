import type { AggregateCoverage } from './coverage.js';
import type { AggregateChunkScores, AggregateScores } from './metrics.js';
import type { EvalReport, GroupScores } from './runner.js';

interface Column<T> {
  title: string;
  width: number;
  get: (s: T) => string;
}

const COLUMNS: Column<AggregateScores>[] = [
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

const CHUNK_COLUMNS: Column<AggregateChunkScores>[] = [
  { title: 'n', width: 4, get: (s) => String(s.count) },
  { title: 'Acc@1', width: 6, get: (s) => s.acc1.toFixed(3) },
  { title: 'Acc@5', width: 6, get: (s) => s.acc5.toFixed(3) },
  { title: 'Acc@10', width: 6, get: (s) => s.acc10.toFixed(3) },
  { title: 'MRR@10', width: 6, get: (s) => s.mrr10.toFixed(3) },
  { title: 'P@10', width: 6, get: (s) => s.precision10.toFixed(3) },
  { title: 'p50 ms', width: 8, get: (s) => s.latencyMs.median.toFixed(1) },
  { title: 'p95 ms', width: 8, get: (s) => s.latencyMs.p95.toFixed(1) },
];

const COVERAGE_COLUMNS: Column<AggregateCoverage>[] = [
  { title: 'n', width: 4, get: (s) => String(s.count) },
  { title: 'Cov@10hits', width: 10, get: (s) => s.atHits.toFixed(3) },
  { title: 'Cov@budget', width: 10, get: (s) => s.atBudget.toFixed(3) },
  { title: 'lines@10', width: 8, get: (s) => s.linesReturned.toFixed(0) },
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
    `baseline: ${report.baseline ? `plain BM25 over whole files and over ${report.baseline.windowLines}-line windows (k1=${report.baseline.k1}, b=${report.baseline.b})` : 'off'}`,
    `machine:  ${report.machine.cpus} × ${report.machine.cpuModel}, ${report.machine.memoryGiB} GiB, node ${report.machine.node}`,
    `checkouts: ${summariseCheckouts(report)}; total ${report.seconds.toFixed(1)}s`,
  );
  const sections: [string, Record<string, GroupScores>][] = [
    ['by class', report.byClass],
    ['by repository', report.byRepo],
  ];
  /** One table: the overall rows, then each section's groups. */
  const table = (rowsOf: (label: string, g: GroupScores) => string[]) => {
    out.push(...rowsOf('overall', report.overall));
    for (const [title, groups] of sections) {
      const entries = Object.entries(groups);
      if (entries.length === 0) continue;
      out.push(title);
      for (const [name, g] of entries) out.push(...rowsOf(`  ${name}`, g));
    }
  };
  out.push('', 'file lists (results collapsed to files, top 10 files)', header(COLUMNS));
  table(groupLines);
  out.push(
    '',
    `chunk lists (as codesift search prints them: top 10 chunks; a chunk is a hit when its file is relevant${
      report.baseline ? `; bm25 over ${report.baseline.windowLines}-line windows` : ''
    })`,
    header(CHUNK_COLUMNS),
  );
  table(chunkLines);
  const coverage = report.overall.coverage;
  if (coverage) {
    out.push(
      '',
      `answer coverage (queries with line answers: share of answering lines in the first 10 hits, and in the first ${coverage.codesiftChunks.budgetLines} returned lines)`,
      header(COVERAGE_COLUMNS),
    );
    table(coverageLines);
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

function header<T>(columns: Column<T>[]): string {
  return `${''.padEnd(GROUP_WIDTH + SYSTEM_WIDTH)}${columns.map((c) => c.title.padStart(c.width + 1)).join('')}`;
}

function groupLines(label: string, g: GroupScores): string[] {
  const lines = [row(label, 'codesift', g.codesift, COLUMNS)];
  if (g.bm25) lines.push(row('', 'bm25', g.bm25, COLUMNS));
  return lines;
}

function chunkLines(label: string, g: GroupScores): string[] {
  const lines = [row(label, 'codesift', g.chunks.codesift, CHUNK_COLUMNS)];
  if (g.chunks.bm25) lines.push(row('', 'bm25', g.chunks.bm25, CHUNK_COLUMNS));
  return lines;
}

function coverageLines(label: string, g: GroupScores): string[] {
  if (!g.coverage) return [];
  const lines = [
    row(label, 'cs chunk', g.coverage.codesiftChunks, COVERAGE_COLUMNS),
    row('', 'cs file', g.coverage.codesiftFiles, COVERAGE_COLUMNS),
  ];
  if (g.coverage.bm25Windows)
    lines.push(row('', 'bm25 win', g.coverage.bm25Windows, COVERAGE_COLUMNS));
  return lines;
}

function row<T>(group: string, system: string, s: T, columns: Column<T>[]): string {
  const name = group.length > GROUP_WIDTH - 1 ? `${group.slice(0, GROUP_WIDTH - 2)}…` : group;
  return `${name.padEnd(GROUP_WIDTH)}${system.padEnd(SYSTEM_WIDTH)}${columns.map((c) => c.get(s).padStart(c.width + 1)).join('')}`;
}

function summariseCheckouts(report: EvalReport): string {
  const counts = new Map<string, number>();
  for (const c of report.checkouts) counts.set(c.status, (counts.get(c.status) ?? 0) + 1);
  const seconds = report.checkouts.reduce((s, c) => s + c.indexSeconds, 0);
  const parts = [...counts.entries()].map(([k, n]) => `${n} ${k}`);
  return `${report.checkouts.length} (${parts.join(', ')}), indexing ${seconds.toFixed(1)}s`;
}
