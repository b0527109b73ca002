/**
 * The LLM-context targets of issue 13, run by `npm run bench` (run.ts):
 *
 * - no model configured, indexing speed unchanged: this tree against a
 *   previous build (`--baseline <dir>`), alternating runs, ratio of medians;
 * - a fake model answering in 50 ms per call, concurrency 8, built-in
 *   embedder on: >= 100 chunks/s end to end;
 * - a re-index with nothing changed: zero model calls (the fake's request
 *   count), and no slower than a pattern re-index.
 *
 * The fake Ollama runs in this process on loopback; each index job runs in
 * its own process (index-worker.js), as a real server and CLI would.
 */
import path from 'node:path';
import { median } from '@codesift/eval';
import { LLM_DEFAULTS, type LlmConfig } from '@codesift/llm';
import { startFakeLlmServer } from '@codesift/llm/testing';
import { runIndexJob, type WorkerResult } from './index-jobs.js';

export interface BenchRow {
  scenario: string;
  files: number;
  chunks: number;
  seconds: number;
  chunksPerSecond: number;
  maxRssMB: number;
  target: string;
  ok: boolean;
  note?: string;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/**
 * This tree against `baseline` (a built codesift tree), no model configured:
 * `rounds` fresh builds each, alternating which goes first, so a load spike
 * on the shared machine hits both about equally.
 */
export async function baselineRatio(options: {
  root: string;
  files: number;
  work: string;
  baseline: string;
  vectors: boolean;
  rounds: number;
  log: (line: string) => void;
}): Promise<BenchRow> {
  const rates: { own: number[]; prev: number[] } = { own: [], prev: [] };
  for (let i = 0; i < options.rounds; i++) {
    const order = i % 2 === 0 ? (['own', 'prev'] as const) : (['prev', 'own'] as const);
    for (const which of order) {
      const r = await runIndexJob(
        {
          root: options.root,
          indexPath: path.join(options.work, `ratio-${which}-${options.vectors}-${i}.db`),
          vectors: options.vectors,
        },
        which === 'own' ? undefined : options.baseline,
      );
      rates[which].push(r.summary.chunks / r.wallSeconds);
      options.log(
        `  ${which} round ${i + 1}: ${round(r.wallSeconds)} s, ${r.summary.chunks} chunks`,
      );
    }
  }
  const ratio = median(rates.own) / median(rates.prev);
  return {
    scenario: `no model: index ${options.files} files${options.vectors ? ', built-in embedder' : ', --no-vectors'}, this tree / previous HEAD (median of ${options.rounds} alternating runs each)`,
    files: options.files,
    chunks: 0,
    seconds: 0,
    chunksPerSecond: Math.round(median(rates.own)),
    maxRssMB: 0,
    target: 'ratio >= 0.90 (unchanged within noise)',
    ok: ratio >= 0.9,
    note: `ratio ${round(ratio)}; chunks/s (wall) this tree ${rates.own.map((x) => Math.round(x)).join(', ')}; previous ${rates.prev.map((x) => Math.round(x)).join(', ')}`,
  };
}

/** The fake model's speed and the client's concurrency of the target. */
const MODEL_MS = 50;
const CONCURRENCY = 8;

/** The target's fake model (MODEL_MS per call) on loopback, and the config that calls it at CONCURRENCY. */
export async function startTargetFakeLlm(): Promise<{
  fake: Awaited<ReturnType<typeof startFakeLlmServer>>;
  llm: LlmConfig;
}> {
  const fake = await startFakeLlmServer({
    mode: {
      kind: 'delay',
      ms: MODEL_MS,
      after: {
        kind: 'good',
        answer: { context: 'Part of the synthetic benchmark tree that keeps orders and events.' },
      },
    },
  });
  const llm: LlmConfig = {
    ...LLM_DEFAULTS,
    host: fake.url,
    model: 'fake-50ms',
    concurrency: CONCURRENCY,
    // A loaded machine must not turn slow answers into fallbacks: all calls are measured.
    timeoutMs: 120_000,
  };
  return { fake, llm };
}

export async function llmContextRows(options: {
  root: string;
  files: number;
  work: string;
  log: (line: string) => void;
}): Promise<BenchRow[]> {
  const { fake, llm } = await startTargetFakeLlm();
  const rows: BenchRow[] = [];
  try {
    const llmIndex = path.join(options.work, 'llm', 'index.db');
    const patternIndex = path.join(options.work, 'pattern', 'index.db');
    options.log(
      `  LLM contexts, fake model ${MODEL_MS} ms per call, concurrency ${CONCURRENCY}, built-in embedder`,
    );
    let calls = fake.generations().length;
    const cold = await runIndexJob({ root: options.root, indexPath: llmIndex, vectors: true, llm });
    const coldCalls = fake.generations().length - calls;
    const endToEnd = cold.summary.chunks / cold.wallSeconds;
    const sources = cold.summary.context?.sources;
    options.log('  pattern index of the same tree (the comparison, and for the re-index)');
    const pattern = await runIndexJob({
      root: options.root,
      indexPath: patternIndex,
      vectors: true,
    });
    rows.push({
      ...row(
        `LLM contexts, fake model ${MODEL_MS} ms × ${CONCURRENCY}, built-in embedder, cold cache`,
        cold,
      ),
      target: '>= 100 chunks/s end to end',
      ok: endToEnd >= 100 && sources?.llm === cold.summary.chunks,
      note: `${coldCalls} model calls; contexts llm ${sources?.llm}, pattern ${sources?.pattern}; ${round(endToEnd, 0)} chunks/s over the process's wall time (model load ${round(cold.modelLoadSeconds)} s included); ceiling of the model alone ${Math.round((1000 / MODEL_MS) * CONCURRENCY)} calls/s; ${cpuNote(cold)}; wall time ${round(cold.wallSeconds / pattern.wallSeconds)}× and CPU ${round(cold.cpuSeconds / pattern.cpuSeconds)}× the pattern-context run below`,
    });

    rows.push({
      ...row('pattern contexts, same tree, built-in embedder (for comparison)', pattern),
      target: 'info',
      note: cpuNote(pattern),
    });

    // Nothing changed: alternate LLM-mode and pattern-mode re-indexes.
    const again: { llm: number[]; pattern: number[] } = { llm: [], pattern: [] };
    calls = fake.generations().length;
    for (let i = 0; i < 3; i++) {
      const order = i % 2 === 0 ? (['llm', 'pattern'] as const) : (['pattern', 'llm'] as const);
      for (const which of order) {
        const r = await runIndexJob({
          root: options.root,
          indexPath: which === 'llm' ? llmIndex : patternIndex,
          vectors: true,
          ...(which === 'llm' ? { llm } : {}),
        });
        if (r.summary.filesIndexed !== 0) throw new Error(`re-index ${which} indexed files`);
        // The index run itself: process start and model load are the same for both.
        again[which].push(r.summary.seconds);
      }
    }
    const reCalls = fake.generations().length - calls;
    const llmS = median(again.llm);
    const patternS = median(again.pattern);
    rows.push({
      scenario: `re-index ${options.files} files, nothing changed, LLM mode vs pattern mode (median of 3 alternating runs)`,
      files: 0,
      chunks: 0,
      seconds: round(llmS, 3),
      chunksPerSecond: 0,
      maxRssMB: 0,
      target: '0 model calls; seconds <= pattern re-index (+10 ms noise)',
      ok: reCalls === 0 && llmS <= patternS + 0.01,
      note: `${reCalls} model calls over 3 LLM-mode re-indexes; indexing seconds LLM ${again.llm.join(', ')}, pattern ${again.pattern.join(', ')}`,
    });
  } finally {
    await fake.close();
  }
  return rows;
}

function cpuNote(r: WorkerResult): string {
  return `process CPU ${round(r.cpuSeconds, 1)} s (${round((r.cpuSeconds * 1000) / Math.max(1, r.summary.chunks), 1)} ms per chunk)`;
}

function row(scenario: string, r: WorkerResult): BenchRow {
  return {
    scenario,
    files: r.summary.filesIndexed,
    chunks: r.summary.chunks,
    seconds: round(r.wallSeconds),
    chunksPerSecond: Math.round(r.summary.chunksPerSecond),
    maxRssMB: Math.round(r.maxRssMB),
    target: '',
    ok: true,
  };
}
