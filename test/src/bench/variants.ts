/**
 * Query variants benchmark (not a test):
 *
 *   node test/dist/bench/variants.js --index <index.db> --set <queries.jsonl> \
 *     [--prev <built checkout of the previous HEAD>] [--rounds 3] [--limit-queries 40] [--llm-only]
 *
 * In process, over one index and the queries of a set (both the `query` and
 * the `query_title` fields when the set has titles), interleaved per query
 * so load spikes hit every configuration alike:
 *
 * 1. the previous HEAD's engine (--prev), this engine with variants off, by
 *    default (a report's views) and with 3 offline variants of every kind:
 *    p50/p99 and the ratios the targets name;
 * 2. against the fake Ollama answering every call after 200 ms, natural-
 *    language questions with the rewrite alone, one phrasing and three
 *    phrasings (a fresh question per round, so the phrasings cache never
 *    answers).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLlmClient, LLM_DEFAULTS } from '@codesift/llm';
import { type FakeRequest, startFakeLlmServer } from '@codesift/llm/testing';
import { openLocalEngine, type SearchEngine, type SearchRequest } from '@codesift/search';

const { values } = parseArgs({
  options: {
    index: { type: 'string' },
    set: { type: 'string' },
    prev: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    'limit-queries': { type: 'string', default: '40' },
    'llm-ms': { type: 'string', default: '200' },
    /** Only the model part (2.). */
    'llm-only': { type: 'boolean', default: false },
  },
});
if (!values.index || !values.set) {
  process.stderr.write(
    'usage: variants.js --index <index.db> --set <queries.jsonl> [--prev <dir>]\n',
  );
  process.exit(2);
}
const rounds = Math.max(1, Number(values.rounds));
const llmMs = Number(values['llm-ms']);

const rows = readFileSync(values.set, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { query: string; query_title?: string })
  .slice(0, Number(values['limit-queries']));
const queries = rows.flatMap((r) => (r.query_title ? [r.query, r.query_title] : [r.query]));

type Open = (o: { indexPath: string }) => Promise<SearchEngine>;
const configs: { name: string; open: Open; extra: Partial<SearchRequest> }[] = [];
if (values.prev) {
  const prev = (await import(path.resolve(values.prev, 'libs/search/dist/index.js'))) as {
    openLocalEngine: Open;
  };
  configs.push({ name: 'previous HEAD', open: prev.openLocalEngine, extra: {} });
}
configs.push({ name: 'variants off', open: openLocalEngine, extra: { variants: 0 } });
configs.push({ name: 'default (report views)', open: openLocalEngine, extra: {} });
configs.push({
  name: '3 offline variants, every kind',
  open: openLocalEngine,
  extra: { variants: 3 },
});
// Issue 14's offline target: the vocabulary bridge on top of 3 variants.
configs.push({
  name: 'bridge + 3 offline variants',
  open: openLocalEngine,
  extra: { variants: 3, bridge: true },
});

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const fmt = (n: number) => n.toFixed(1);

if (!values['llm-only']) await offline();

async function offline(): Promise<void> {
  const engines = await Promise.all(configs.map((c) => c.open({ indexPath: values.index! })));
  const times = configs.map(() => [] as number[]);
  const variantsUsed: number[] = [];
  for (const e of engines) await e.search({ query: 'warm up the index and the model' });
  for (let r = 0; r < rounds; r++) {
    for (const [qi, query] of queries.entries()) {
      // Rotate the order so no configuration always runs first (or last) on a query.
      for (let k = 0; k < configs.length; k++) {
        const i = (k + qi + r) % configs.length;
        const t0 = performance.now();
        const res = await engines[i]!.search({ query, includePlan: true, ...configs[i]!.extra });
        times[i]!.push(performance.now() - t0);
        if (configs[i]!.extra.variants === 3 && r === 0)
          variantsUsed.push(res.plan!.variants.list.length);
      }
    }
  }
  for (const e of engines) await e.close();

  const base = configs.findIndex((c) => c.name === 'variants off');
  const prevAt = configs.findIndex((c) => c.name === 'previous HEAD');
  console.log(`index ${values.index}`);
  console.log(
    `${queries.length} queries x ${rounds} rounds; with 3 variants asked, ${variantsUsed.filter((n) => n > 1).length} of ${variantsUsed.length} queries had more than one view\n`,
  );
  console.log('| config | n | p50 ms | p99 ms | p50 / variants off | p50 / previous HEAD |');
  console.log('|---|---:|---:|---:|---:|---:|');
  configs.forEach((c, i) => {
    const p50 = pct(times[i]!, 50);
    const vsPrev = prevAt < 0 ? '—' : (p50 / pct(times[prevAt]!, 50)).toFixed(2);
    console.log(
      `| ${c.name} | ${times[i]!.length} | ${fmt(p50)} | ${fmt(pct(times[i]!, 99))} | ${(p50 / pct(times[base]!, 50)).toFixed(2)} | ${vsPrev} |`,
    );
  });
}

// 2. The model's phrasings against a fake Ollama that answers after llmMs.
const fake = await startFakeLlmServer({
  mode: {
    kind: 'delay',
    ms: llmMs,
    after: {
      kind: 'good',
      answer: (req: FakeRequest) =>
        JSON.stringify(req.body?.format ?? {}).includes('"phrasings"')
          ? {
              phrasings: ['read the value from the config', 'parse the setting', 'load the option'],
            }
          : { terms: [], focus: '' },
    },
  },
});
const llm = createLlmClient({ ...LLM_DEFAULTS, host: fake.url, model: 'fake', retries: 0 });
const engine = await openLocalEngine({ indexPath: values.index, llm });
const questions = [
  'how is the configuration file read at startup',
  'where are failed requests retried',
  'what happens when the session expires',
  'how are missing values filled in a dataset',
  'where is the output written to disk',
];
const llmConfigs: { name: string; extra: Partial<SearchRequest> }[] = [
  { name: 'rewrite alone', extra: {} },
  { name: '1 phrasing', extra: { variants: 2, variantKinds: ['phrasing'] } },
  { name: '3 phrasings', extra: { variants: 4, variantKinds: ['phrasing'] } },
];
const llmTimes = llmConfigs.map(() => [] as number[]);
await engine.search({ query: 'warm up the index and the model', rewrite: 'off' });
for (let r = 0; r < rounds * 2; r++) {
  for (const [qi, q] of questions.entries()) {
    for (let k = 0; k < llmConfigs.length; k++) {
      const i = (k + qi + r) % llmConfigs.length;
      // A question never asked before: the phrasings cache must not answer.
      const query = `${q} ${r}${k}`;
      const t0 = performance.now();
      await engine.search({ query, ...llmConfigs[i]!.extra });
      llmTimes[i]!.push(performance.now() - t0);
    }
  }
}
await engine.close();
await fake.close();
console.log(`\nfake model answering after ${llmMs} ms, natural-language questions:\n`);
console.log('| config | n | p50 ms | p99 ms | p50 / 1 phrasing |');
console.log('|---|---:|---:|---:|---:|');
llmConfigs.forEach((c, i) => {
  console.log(
    `| ${c.name} | ${llmTimes[i]!.length} | ${fmt(pct(llmTimes[i]!, 50))} | ${fmt(pct(llmTimes[i]!, 99))} | ${(pct(llmTimes[i]!, 50) / pct(llmTimes[1]!, 50)).toFixed(2)} |`,
  );
});
