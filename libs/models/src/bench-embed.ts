// Throughput benchmark for the built-in embedder (not a test):
//   node libs/models/dist/bench-embed.js [--texts 500] [--threads N] [--workers N] [--batches 4,8,16,32]
// Chunks are 20-80 line windows of JS/TS sources under node_modules, the
// kind of text the indexer embeds.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBuiltinEmbedder } from './builtin-embedder.js';
import { UseTokenizer } from './tokenizer.js';
import { useLiteVocabPath } from './use-lite-files.js';

const { values: args } = parseArgs({
  options: {
    texts: { type: 'string', default: '500' },
    threads: { type: 'string' },
    workers: { type: 'string' },
    batches: { type: 'string', default: '4,8,16,32' },
    root: { type: 'string', default: path.resolve('node_modules') },
  },
});
const wanted = Number(args.texts);

/** Deterministic pseudo-random numbers, so runs embed the same chunks. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

function collectChunks(root: string, count: number): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (files.length >= count * 4) return;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|js|mjs)$/.test(e.name) && !/\.min\.js$|\.d\.ts$/.test(e.name)) files.push(p);
    }
  };
  walk(root);
  const random = rng(42);
  const chunks: string[] = [];
  for (const file of files) {
    if (chunks.length >= count) break;
    if (statSync(file).size > 500_000) continue;
    const lines = readFileSync(file, 'utf8').split('\n');
    if (lines.length < 20) continue;
    const len = 20 + Math.floor(random() * 61);
    const start = Math.floor(random() * Math.max(1, lines.length - len));
    chunks.push(lines.slice(start, start + len).join('\n'));
  }
  return chunks;
}

const chunks = collectChunks(args.root, wanted);
const chars = chunks.reduce((a, c) => a + c.length, 0);
console.log(`${chunks.length} chunks, ${Math.round(chars / chunks.length)} chars on average`);

const tokenizer = await UseTokenizer.fromFile(useLiteVocabPath());
for (const c of chunks) tokenizer.encode(c); // warm-up
let tokens = 0;
const t0 = performance.now();
const rounds = 5;
for (let r = 0; r < rounds; r++) for (const c of chunks) tokens += tokenizer.encode(c).length;
const perText = (performance.now() - t0) / (rounds * chunks.length);
console.log(
  `tokenizer: ${(perText * 1000).toFixed(1)} µs/text, ${(tokens / (rounds * chunks.length)).toFixed(0)} tokens/text`,
);
const long = chunks.map((c) => c.padEnd(3000, ` ${c}`).slice(0, 3000));
const t1 = performance.now();
for (let r = 0; r < rounds; r++) for (const c of long) tokenizer.encode(c);
console.log(
  `tokenizer: ${(((performance.now() - t1) / (rounds * long.length)) * 1000).toFixed(1)} µs per 3,000-char text`,
);

for (const batchSize of args.batches.split(',').map(Number)) {
  const embedder = await createBuiltinEmbedder({
    batchSize,
    ...(args.threads ? { threads: Number(args.threads) } : {}),
    ...(args.workers ? { workers: Number(args.workers) } : {}),
  });
  // Warm-up, one call per worker.
  await Promise.all([0, 1].map(() => embedder.embed(chunks.slice(0, batchSize))));
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  // One call per batch, as the indexer sends them, up to four in flight as it keeps them.
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < chunks.length; i += batchSize) {
    if (inFlight.length >= 4) await inFlight.shift();
    inFlight.push(embedder.embed(chunks.slice(i, i + batchSize)));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  // The whole process's CPU, the model's threads included: on a shared machine
  // it is steadier than the wall time.
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerText = (cpu.user + cpu.system) / 1000 / chunks.length;
  const rss = process.memoryUsage().rss / 2 ** 20;
  console.log(
    `batch ${String(batchSize).padStart(3)}: ${(chunks.length / seconds).toFixed(1)} texts/s, ${cpuMsPerText.toFixed(1)} CPU ms/text, rss ${rss.toFixed(0)} MiB`,
  );
  await embedder.close();
}
