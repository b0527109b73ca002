import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { repoRoot } from './cli.js';

const WORKER_BIN = path.join(repoRoot, 'services', 'worker', 'bin', 'codesift-worker.js');

/** A free TCP port on loopback, found by binding port 0 and closing again. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether a process with this pid still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Worker {
  stage: string;
  proc: ChildProcess;
  /** Everything the worker wrote on stderr (its log lines). */
  log: string;
  /** The exit code once it has exited (null when a signal ended it). */
  exit: Promise<number | null>;
}

/** Starts one pipeline stage as its own process, the way `npm run cluster` does. */
export function startWorker(stage: string, env: NodeJS.ProcessEnv): Worker {
  const proc = spawn(process.execPath, [WORKER_BIN, stage], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const w: Worker = {
    stage,
    proc,
    log: '',
    exit: new Promise((resolve) => proc.once('exit', (code) => resolve(code))),
  };
  proc.stderr?.on('data', (b: Buffer) => {
    w.log += b.toString();
  });
  return w;
}
