/**
 * LLM rewrite benchmark (not a test), part of `npm run bench`, or alone:
 *
 *   node test/dist/bench/rewrite.js [--quick] [--files 5000] [--rounds 20]
 *                                   [--delay-ms 200] [--baseline <checkout>]
 *
 * Over a keyword-only index of the synthetic repository (test/src/support/tree.ts),
 * against the targets of the rewrite issue:
 *
 * 1. No model configured: search latency unchanged. With --baseline (a built
 *    checkout of the previous HEAD) its engine is loaded beside this one and
 *    the two search the same index in one process, alternating query by query
 *    (the order swapped every round), so load on the machine hits both alike.
 * 2. The LLM step costs at most the model's own latency plus 2 ms: with the fake
 *    Ollama answering after --delay-ms, the step's own time (`timings.rewrite`)
 *    minus the model's latency, measured right after as the same request body
 *    posted to the same server.
 * 3. With the model answering in 200 ms, a natural-language query's p50 stays
 *    at most 250 ms (the whole search, wall clock).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { wordStems } from '@codesift/analysis';
import { createLlmClient, LLM_DEFAULTS } from '@codesift/llm';
import { type FakeLlmServer, startFakeLlmServer } from '@codesift/llm/testing';
import { indexRepository } from '@codesift/pipeline';
import { openLocalEngine, type SearchEngine } from '@codesift/search';
import { openSqliteIndex } from '@codesift/stores';
import { syntheticRepo } from '../support/tree.js';

export interface RewriteBenchOptions {
  files: number;
  rounds: number;
  delayMs: number;
  /** A built checkout of the previous HEAD, for the no-model latency ratio. */
  baseline?: string;
}

const MODEL = 'bench-model';

/** Natural language about the synthetic modules: the rewrite decision sends these. */
const NATURAL = [
  'how is a new order added and the listeners notified',
  'where is the amount of an order parsed from text',
  'remove an order from the service',
  'how are http requests for a resource handled',
  'compute the total of all orders',
  'store a value under a key in the store',
];
/** What the decision never sends: identifiers, a qualified name, a stack trace. */
const OTHER = [
  'OrderService17',
  'parseAmount3',
  'addOrder removeOrder',
  'OrderService2.addOrder',
  'Error: amount must be positive\n    at OrderService4.addOrder (src/pkg4/service4.ts:48:13)\n    at main (src/main.ts:3:1)',
];

export interface Stats {
  n: number;
  p50: number;
  p90: number;
  max: number;
  mean: number;
}

function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
  return {
    n: s.length,
    p50: at(0.5),
    p90: at(0.9),
    max: s[s.length - 1]!,
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

async function wall(engine: SearchEngine, query: string, extra: object = {}) {
  const t0 = performance.now();
  const res = await engine.search({ query, limit: 10, ...extra });
  return { ms: performance.now() - t0, res };
}

/** Target 1: this engine and the baseline's, no model, alternating. */
async function noModelRatio(indexPath: string, opts: RewriteBenchOptions) {
  const current = await openLocalEngine({ indexPath, embedder: null, config: null, llm: null });
  const engines: { name: string; engine: SearchEngine; ms: number[] }[] = [
    { name: 'this HEAD', engine: current, ms: [] },
  ];
  if (opts.baseline) {
    const entry = path.join(path.resolve(opts.baseline), 'libs', 'search', 'dist', 'index.js');
    const prev = (await import(pathToFileURL(entry).href)) as typeof import('@codesift/search');
    const engine = await prev.openLocalEngine({
      indexPath,
      embedder: null,
      config: null,
      llm: null,
    });
    engines.push({ name: 'baseline', engine, ms: [] });
  }
  const queries = [...NATURAL, ...OTHER];
  try {
    for (const e of engines) for (const q of queries) await wall(e.engine, q); // warm-up
    for (let r = 0; r < opts.rounds; r++) {
      for (const [i, q] of queries.entries()) {
        const order = (r + i) % 2 === 0 ? engines : [...engines].reverse();
        for (const e of order) e.ms.push((await wall(e.engine, q)).ms);
      }
    }
  } finally {
    for (const e of engines) await e.engine.close();
  }
  return engines.map((e) => ({ name: e.name, ...stats(e.ms) }));
}

/** The model's own latency: the recorded request body posted again, the answer read. */
async function modelLatency(fake: FakeLlmServer): Promise<number> {
  const last = fake.generations().at(-1)!;
  const t0 = performance.now();
  const res = await fetch(`${fake.url}${last.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(last.body),
  });
  await res.json();
  return performance.now() - t0;
}

/** What the step reads before it asks the model: the vocabulary slice (SymbolIndex.related). */
async function sliceLatency(indexPath: string, opts: RewriteBenchOptions) {
  const index = openSqliteIndex(indexPath, { readonly: true });
  const ms: number[] = [];
  try {
    const stems = NATURAL.map((q) => wordStems(q));
    for (const s of stems) await index.symbols.related!(s, { limit: 40 }); // warm-up
    for (let r = 0; r < opts.rounds; r++) {
      for (const s of stems) {
        const t0 = performance.now();
        await index.symbols.related!(s, { limit: 40 });
        ms.push(performance.now() - t0);
      }
    }
    return { symbols: index.stats().symbols, ...stats(ms) };
  } finally {
    index.close();
  }
}

/** Targets 2 and 3: the step's cost over the model's, and the wall clock, with the fake at `delayMs`. */
async function withModel(indexPath: string, opts: RewriteBenchOptions) {
  const fake = await startFakeLlmServer({
    models: [MODEL],
    mode: { kind: 'delay', ms: opts.delayMs, after: { kind: 'vocabulary-echo' } },
  });
  const llm = createLlmClient({ ...LLM_DEFAULTS, host: fake.url, model: MODEL });
  const engine = await openLocalEngine({ indexPath, embedder: null, config: null, llm });
  const step: number[] = [];
  const model: number[] = [];
  const overhead: number[] = [];
  const total: number[] = [];
  const plain: number[] = [];
  let termsAdded = 0;
  try {
    for (const q of NATURAL) await wall(engine, q); // warm-up
    for (let r = 0; r < opts.rounds; r++) {
      for (const q of NATURAL) {
        const { ms, res } = await wall(engine, q, { explain: true });
        const rw = res.plan?.llmRewrite;
        if (rw?.decision !== 'run' || rw.fallback !== null || res.timings.rewrite === undefined) {
          throw new Error(`the rewrite did not run for "${q}": ${JSON.stringify(rw)}`);
        }
        termsAdded += rw.terms.length;
        const m = await modelLatency(fake);
        step.push(res.timings.rewrite);
        model.push(m);
        overhead.push(res.timings.rewrite - m);
        total.push(ms);
        plain.push((await wall(engine, q, { rewrite: 'off' })).ms);
      }
    }
  } finally {
    await engine.close();
    await fake.close();
  }
  return {
    step: stats(step),
    model: stats(model),
    overhead: stats(overhead),
    total: stats(total),
    plain: stats(plain),
    meanTerms: termsAdded / step.length,
  };
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

export async function benchRewrite(
  opts: RewriteBenchOptions,
  log: (msg: string) => void = (m) => process.stderr.write(`${m}\n`),
): Promise<{ markdown: string; json: unknown }> {
  const work = mkdtempSync(path.join(tmpdir(), 'codesift-bench-rewrite-'));
  try {
    const root = path.join(work, 'repo');
    syntheticRepo(root, opts.files);
    const indexPath = path.join(work, 'index.db');
    const summary = await indexRepository({ root, indexPath, vectors: false });
    log(`rewrite: indexed ${summary.totals.chunks} chunks; searching without a model`);
    const noModel = await noModelRatio(indexPath, opts);
    log(`rewrite: with the fake model answering in ${opts.delayMs} ms`);
    const model = await withModel(indexPath, opts);
    const slice = await sliceLatency(indexPath, opts);

    const cur = noModel[0]!;
    const base = noModel[1];
    const lines = [
      `Index: ${opts.files} synthetic files, ${summary.totals.chunks} chunks, ${slice.symbols} symbols, keyword only; ${opts.rounds} rounds after a warm-up.`,
      '',
      `No model configured, ${NATURAL.length + OTHER.length} queries (natural language, identifiers, a stack trace) per round${base ? ', this HEAD and the baseline alternating' : ''}:`,
      '',
      '| engine | n | p50 ms | p90 ms | mean ms |',
      '|---|---:|---:|---:|---:|',
      ...noModel.map((e) => `| ${e.name} | ${e.n} | ${f2(e.p50)} | ${f2(e.p90)} | ${f2(e.mean)} |`),
    ];
    if (base) {
      lines.push(
        '',
        `Ratio this HEAD / baseline: p50 ${f2(cur.p50 / base.p50)}, mean ${f2(cur.mean / base.mean)} (target: unchanged, 1.00 within the noise).`,
      );
    }
    const ok2 = model.overhead.p50 <= 2;
    const ok3 = model.total.p50 <= 250 || opts.delayMs !== 200;
    lines.push(
      '',
      `Fake model answering after ${opts.delayMs} ms (vocabulary-echo), ${NATURAL.length} natural-language queries per round, ${f1(model.meanTerms)} terms added per query on average:`,
      '',
      '| measure | n | p50 ms | p90 ms | max ms |',
      '|---|---:|---:|---:|---:|',
      ...(
        [
          ['the model alone (same request posted again)', model.model],
          ['the rewrite step (`timings.rewrite`)', model.step],
          ['step minus model, per query', model.overhead],
          [`of which the vocabulary slice (\`related\`, ${slice.symbols} symbols)`, slice],
          ['whole search, rewrite on', model.total],
          ['whole search, rewrite off', model.plain],
        ] as const
      ).map(([what, s]) => `| ${what} | ${s.n} | ${f2(s.p50)} | ${f2(s.p90)} | ${f2(s.max)} |`),
      '',
      `Targets: step minus model ≤ 2 ms (p50 ${f2(model.overhead.p50)}: ${ok2 ? 'met' : 'NOT met'}); with a 200 ms model, whole search p50 ≤ 250 ms (${opts.delayMs === 200 ? `${f1(model.total.p50)}: ${ok3 ? 'met' : 'NOT met'}` : 'not measured at this delay'}).`,
    );
    return { markdown: lines.join('\n'), json: { options: opts, noModel, model, slice } };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      files: { type: 'string' },
      rounds: { type: 'string' },
      'delay-ms': { type: 'string', default: '200' },
      baseline: { type: 'string' },
    },
  });
  const { markdown } = await benchRewrite({
    files: Number(values.files ?? (values.quick ? 500 : 5000)),
    rounds: Number(values.rounds ?? (values.quick ? 3 : 20)),
    delayMs: Number(values['delay-ms']),
    ...(values.baseline ? { baseline: values.baseline } : {}),
  });
  process.stdout.write(`${markdown}\n`);
}
