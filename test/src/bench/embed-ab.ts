/**
 * Indexing with the built-in embedder, built codesift trees side by side:
 * pattern contexts and LLM contexts (the fake model of llm-context.ts, 50 ms
 * per call, concurrency 8), every job a fresh process (index-worker.js of
 * that tree), the order of the trees rotated every round so a load swing on
 * a shared machine hits each about equally. Prints one JSON line per job.
 *
 *   node test/dist/bench/embed-ab.js --files 300 --rounds 3 /work/base /work/wt-embed
 *   node test/dist/bench/embed-ab.js --modes llm '/work/wt-embed#CODESIFT_EMBED_THREADS=1' /work/wt-embed
 *
 * A tree may carry environment variables for its jobs after a '#'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { syntheticRepo } from '../support/tree.js';
import { runIndexJob } from './index-jobs.js';
import { startTargetFakeLlm } from './llm-context.js';

const { values, positionals } = parseArgs({
  options: {
    files: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    modes: { type: 'string', default: 'pattern,llm' },
  },
  allowPositionals: true,
});
if (positionals.length === 0) throw new Error('name at least one built codesift tree');
const modes = values.modes.split(',');
const work = mkdtempSync(path.join(os.tmpdir(), 'codesift-embed-ab-'));
const root = path.join(work, 'repo');
syntheticRepo(root, Number(values.files));
const { fake, llm } = await startTargetFakeLlm();
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

let job = 0;
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [m, mode] of modes.entries()) {
      const shift = (round + m) % positionals.length;
      const order = [...positionals.slice(shift), ...positionals.slice(0, shift)];
      for (const tree of round % 2 ? order.reverse() : order) {
        const [treePath, envPart] = tree.split('#') as [string, string | undefined];
        const saved = { ...process.env };
        for (const pair of (envPart ?? '').split(',').filter(Boolean)) {
          const [key, value] = pair.split('=') as [string, string];
          process.env[key] = value;
        }
        const loadBefore = load();
        try {
          const r = await runIndexJob(
            {
              root,
              indexPath: path.join(work, `job-${job++}`, 'index.db'),
              vectors: true,
              ...(mode === 'llm' ? { llm } : {}),
            },
            path.resolve(treePath),
          );
          const s = r.summary;
          console.log(
            JSON.stringify({
              round,
              mode,
              tree,
              chunks: s.chunks,
              chunksPerSecond: Math.round((s.chunks / r.wallSeconds) * 10) / 10,
              wallSeconds: Math.round(r.wallSeconds * 10) / 10,
              modelLoadSeconds: Math.round(r.modelLoadSeconds * 10) / 10,
              cpuSeconds: Math.round(r.cpuSeconds * 10) / 10,
              maxRssMB: Math.round(r.maxRssMB),
              llmContexts: s.context?.sources.llm ?? 0,
              load: loadBefore,
            }),
          );
        } finally {
          process.env = saved;
        }
      }
    }
  }
} finally {
  await fake.close();
  rmSync(work, { recursive: true, force: true });
}
