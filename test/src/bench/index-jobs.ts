import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LlmConfig } from '@codesift/llm';

/** What index-worker.js prints for one job. */
export interface WorkerResult {
  summary: {
    filesIndexed: number;
    chunks: number;
    chunksPerSecond: number;
    seconds: number;
    filesScanned: number;
    context?: { calls: number; sources: { llm: number; pattern: number } };
  };
  wallSeconds: number;
  modelLoadSeconds: number;
  maxRssMB: number;
  /** User + system CPU of the job's process. */
  cpuSeconds: number;
}

export interface WorkerJob {
  root: string;
  indexPath: string;
  vectors: boolean;
  rebuild?: boolean;
  llm?: LlmConfig;
  /** Seeded random vectors under the built-in model's name (see random-embedder.ts). */
  randomVectors?: boolean;
}

const OWN_TREE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * Runs one indexing job in a fresh process with the index worker of a built
 * codesift tree (this one by default, or another checkout such as the
 * previous HEAD, whose worker resolves that tree's own libraries).
 * Asynchronous, so a fake model served by this process keeps answering.
 */
export function runIndexJob(job: WorkerJob, tree: string = OWN_TREE): Promise<WorkerResult> {
  return runJsonWorker<WorkerResult>(
    path.join(tree, 'test', 'dist', 'bench', 'index-worker.js'),
    job,
  );
}

/** Runs a benchmark worker script with one JSON argument and parses the JSON line it prints last. */
export function runJsonWorker<T>(worker: string, arg: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [worker, JSON.stringify(arg)],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${worker} failed: ${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as T);
      },
    );
  });
}
