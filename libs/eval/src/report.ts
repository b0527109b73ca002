import type { ContextSummary } from '@codesift/context';
import type { AggregateCoverage } from './coverage.js';
import type { AggregateChunkScores, AggregateScores } from './metrics.js';
import type { EvalReport, GroupScores } from './runner.js';

interface Column<T> {
  title: string;
  width: number;
  get: (s: T) => string;
  /** `a - b` signed, for the delta row of eval --context llm; blank when absent. */
  delta?: (a: T, b: T) => string;
}

/** A numeric column: its value and the signed difference of two rows. */
function metric<T>(title: string, width: number, pick: (s: T) => number, digits = 3): Column<T> {
  return {
    title,
    width,
    get: (s) => pick(s).toFixed(digits),
    delta: (a, b) => {
      const d = pick(a) - pick(b);
      return `${d >= 0 ? '+' : ''}${d.toFixed(digits)}`;
    },
  };
}

const COLUMNS: Column<AggregateScores>[] = [
  { title: 'n', width: 4, get: (s) => String(s.count) },
  metric('Acc@1', 6, (s) => s.acc1),
  metric('Acc@5', 6, (s) => s.acc5),
  metric('Acc@10', 6, (s) => s.acc10),
  metric('R@5', 6, (s) => s.recall5),
  metric('R@10', 6, (s) => s.recall10),
  metric('MRR@10', 6, (s) => s.mrr10),
  metric('nDCG@10', 7, (s) => s.ndcg10),
  metric('p50 ms', 8, (s) => s.latencyMs.median, 1),
  metric('p95 ms', 8, (s) => s.latencyMs.p95, 1),
];

const CHUNK_COLUMNS: Column<AggregateChunkScores>[] = [
  { title: 'n', width: 4, get: (s) => String(s.count) },
  metric('Acc@1', 6, (s) => s.acc1),
  metric('Acc@5', 6, (s) => s.acc5),
  metric('Acc@10', 6, (s) => s.acc10),
  metric('MRR@10', 6, (s) => s.mrr10),
  metric('P@10', 6, (s) => s.precision10),
  metric('p50 ms', 8, (s) => s.latencyMs.median, 1),
  metric('p95 ms', 8, (s) => s.latencyMs.p95, 1),
];

const COVERAGE_COLUMNS: Column<AggregateCoverage>[] = [
  { title: 'n', width: 4, get: (s) => String(s.count) },
  { title: 'Cov@10hits', width: 10, get: (s) => s.atHits.toFixed(3) },
  { title: 'Cov@budget', width: 10, get: (s) => s.atBudget.toFixed(3) },
  { title: 'lines@10', width: 8, get: (s) => s.linesReturned.toFixed(0) },
  // The baseline read for as many lines as codesift's 10 hits hold, query by query.
  {
    title: 'Cov@cs-lines',
    width: 12,
    get: (s) => (s.atMatchedLines === undefined ? '' : s.atMatchedLines.toFixed(3)),
  },
];

const GROUP_WIDTH = 26;
const SYSTEM_WIDTH = 9;

/**
 * The human report: codesift and the baseline side by side (and codesift over
 * LLM contexts with its delta, for eval --context llm), overall, per class
 * and per repository.
 */
export function formatReport(report: EvalReport): string {
  const out: string[] = [];
  const e = report.engine;
  const cmp = report.contextComparison;
  out.push(
    `codesift eval: ${report.set ?? '(query set)'} — ${report.overall.codesift.count} queries, field '${report.queryField}'`,
    `engine:   ${e.vectors ? `hybrid, embedder ${e.embedder}` : 'keyword only'}, fusion ${e.fusion}`,
    `contexts: ${cmp ? `pattern (codesift) and LLM (cs+llm: ${cmp.model}, prompt ${cmp.promptVersion}), each in its own index; Δ llm = cs+llm − codesift` : 'pattern'}`,
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
      `answer coverage (queries with line answers: share of answering lines in the first 10 hits, in the first ${coverage.codesiftChunks.budgetLines} returned lines${
        coverage.bm25Windows ? `, and (bm25) in as many lines as codesift's 10 hits hold` : ''
      })`,
      header(COVERAGE_COLUMNS),
    );
    table(coverageLines);
  }
  if (cmp) {
    out.push(
      '',
      `LLM contexts: ${cmp.queries.better} queries ranked their first relevant file higher, ${cmp.queries.worse} lower, ${cmp.queries.same} the same`,
      `index contexts (this run's indexing; a cached index as recorded when built):`,
      `  pattern index  ${describeContexts(cmp.indexes.pattern)}`,
      `  LLM index      ${describeContexts(cmp.indexes.llm)}`,
    );
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
  return systemLines(label, g.codesift, g.llm, g.bm25, COLUMNS);
}

function chunkLines(label: string, g: GroupScores): string[] {
  return systemLines(label, g.chunks.codesift, g.chunks.llm, g.chunks.bm25, CHUNK_COLUMNS);
}

function systemLines<T>(
  label: string,
  codesift: T,
  llm: T | undefined,
  bm25: T | undefined,
  columns: Column<T>[],
): string[] {
  const lines = [row(label, 'codesift', codesift, columns)];
  if (llm) {
    lines.push(row('', 'cs+llm', llm, columns));
    lines.push(deltaRow('Δ llm', llm, codesift, columns));
  }
  if (bm25) lines.push(row('', 'bm25', bm25, columns));
  return lines;
}

function deltaRow<T>(system: string, a: T, b: T, columns: Column<T>[]): string {
  return `${''.padEnd(GROUP_WIDTH)}${system.padEnd(SYSTEM_WIDTH)}${columns.map((c) => (c.delta?.(a, b) ?? '').padStart(c.width + 1)).join('')}`;
}

/** One line: chunks by context source, fallbacks by reason, calls and cache hits. */
function describeContexts(c: ContextSummary): string {
  const parts = [`chunks: llm ${c.sources.llm}, pattern ${c.sources.pattern}`];
  const fallbacks = Object.entries(c.fallbacks).filter(([, n]) => (n ?? 0) > 0);
  if (c.mode === 'llm') {
    parts.push(
      `fallbacks: ${fallbacks.length === 0 ? 'none' : fallbacks.map(([k, n]) => `${k} ${n}`).join(', ')}`,
      `model calls ${c.calls}, cache hits ${c.cacheHits}`,
      `model answered: ${c.modelAnswered === null ? 'not asked' : c.modelAnswered ? 'yes' : 'no'}`,
    );
  }
  return parts.join('; ');
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
