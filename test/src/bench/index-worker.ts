/**
 * Runs one indexing job in a fresh process and prints a JSON line with the
 * summary, the wall time and the process's peak RSS. The benchmark driver
 * spawns it so every measurement starts cold and RSS is per job.
 *
 *   node index-worker.js '{"root":"/repo","vectors":true,"indexPath":"/tmp/x.db"}'
 *
 * `llm` (an LlmConfig) indexes with LLM contexts, as `--context llm` does.
 * `randomVectors` stores seeded random vectors instead of the model's (see
 * random-embedder.ts), for corpora too large to embed.
 */
import type { LlmConfig } from '@codesift/llm';
import { BUILTIN_EMBEDDER_NAME, createBuiltinEmbedderFromEnv } from '@codesift/models';
import { indexRepository } from '@codesift/pipeline';
import { randomEmbedder } from './random-embedder.js';

interface WorkerArgs {
  root: string;
  indexPath: string;
  vectors: boolean;
  rebuild?: boolean;
  llm?: LlmConfig;
  randomVectors?: boolean;
}

const args = JSON.parse(process.argv[2] ?? '{}') as WorkerArgs;
const t0 = performance.now();
const embedder = !args.vectors
  ? undefined
  : args.randomVectors
    ? randomEmbedder(BUILTIN_EMBEDDER_NAME, 512)
    : // As the CLI makes it: CODESIFT_EMBED_THREADS applies.
      await createBuiltinEmbedderFromEnv();
const modelLoadSeconds = (performance.now() - t0) / 1000;
const summary = await indexRepository({
  root: args.root,
  indexPath: args.indexPath,
  vectors: args.vectors,
  embedder,
  rebuild: args.rebuild,
  ...(args.llm ? { llm: args.llm } : {}),
});
await embedder?.close();
const wallSeconds = (performance.now() - t0) / 1000;
const maxRssMB = process.resourceUsage().maxRSS / 1024;
// CPU of the whole process (the model's native threads included): on a shared
// machine it says what a job costs where its wall time only says how busy the machine was.
const cpu = process.cpuUsage();
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(
  `${JSON.stringify({ summary, wallSeconds, modelLoadSeconds, maxRssMB, cpuSeconds })}\n`,
);
