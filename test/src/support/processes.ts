import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '@codesift/bus/testing';
import { repoRoot } from './cli.js';

const WORKER_BIN = path.join(repoRoot, 'services', 'worker', 'bin', 'codesift-worker.js');

const QUERY_BIN = path.join(repoRoot, 'services', 'query', 'bin', 'codesift-query.js');

export interface QueryProcess {
  proc: ChildProcess;
  /** Everything it wrote on stderr (its log lines). */
  log: string;
  exit: Promise<number | null>;
}

/** Starts `codesift-query` as its own process with `env` over this one's. */
export function startQuery(env: NodeJS.ProcessEnv): QueryProcess {
  const proc = spawn(process.execPath, [QUERY_BIN], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const q: QueryProcess = {
    proc,
    log: '',
    exit: new Promise((resolve) => proc.once('exit', (code) => resolve(code))),
  };
  proc.stderr?.on('data', (b: Buffer) => {
    q.log += b.toString();
  });
  return q;
}

/** The address the query service logged it listens on; rejects with its log when it exits or `timeoutMs` passes. */
export async function listeningAddress(q: QueryProcess, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = q.log.split('\n').find((l) => l.includes('"msg":"listening"'));
    if (line) return JSON.parse(line).address as string;
    assert.ok(q.proc.exitCode === null, `codesift-query exited:\n${q.log}`);
    assert.ok(
      Date.now() < deadline,
      `codesift-query not listening after ${timeoutMs / 1000} s:\n${q.log}`,
    );
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Shared with the bus tests, which start nats-server on a free port the same way.
export { freePort };

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

/**
 * A stage's environment from the cluster's: the symbol service keeps its
 * own store under `dataDir`, the scanner has no index at all.
 */
export function stageEnv(
  stage: string,
  env: NodeJS.ProcessEnv,
  dataDir: string,
): NodeJS.ProcessEnv {
  if (stage === 'symbols') {
    return { ...env, CODESIFT_SYMBOLS_INDEX: path.join(dataDir, 'symbols', 'symbols.db') };
  }
  return stage === 'scanner' ? { ...env, CODESIFT_INDEX: '' } : env;
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

/**
 * Resolves once every worker has logged that it consumes its queues; on a
 * loaded machine starting a few Node processes takes a while. Rejects with
 * their logs when one exits first or `timeoutMs` passes.
 */
export async function workersStarted(workers: readonly Worker[], timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  const started = (w: Worker) => /"msg":"started"/.test(w.log);
  while (!workers.every(started)) {
    const exited = workers.find((w) => w.proc.exitCode !== null);
    if (exited || Date.now() > deadline) {
      const logs = workers.map((w) => `--- ${w.stage}\n${w.log}`).join('\n');
      throw new Error(`${exited ? `${exited.stage} exited` : 'workers did not start'}\n${logs}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const CLUSTER_SCRIPT = path.join(repoRoot, 'scripts', 'cluster.mjs');

export interface DevClusterOptions {
  /** The cluster's data and logs. */
  dir: string;
  cwd: string;
  /** `--embedder`; default none (keyword only). */
  embedder?: string;
  /** `--replicas embedder=<n>`; default the script's (1). */
  embedderReplicas?: number;
  /** `--replicas contextualizer=<n>`; default the script's (1). */
  contextualizerReplicas?: number;
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  /** `--token`; default none, with `--insecure-no-auth` (the gRPC port is on loopback). */
  token?: string;
  /** `--scan-root` each; default the script's (its working directory). */
  scanRoots?: string[];
}

export interface DevCluster {
  proc: ChildProcess;
  /** Resolves with the script's exit code. */
  exited: Promise<number | null>;
  natsUrl: string;
  /**
   * NATS_USER and NATS_PASSWORD of the cluster's NATS (from its nats.env):
   * the environment a NATS client such as `codesift index --remote` needs.
   */
  natsEnv: NodeJS.ProcessEnv;
  grpc: string;
  /** Every process the script started, as its "up" lines name them. */
  pids: number[];
  /** The script's stdout and stderr so far. */
  output(): string;
}

/** NAME=value lines, as `set -a; . file` reads them (no quoting needed for the cluster's). */
function readEnvFile(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

/** `npm run cluster` on free loopback ports, resolved once it says it is ready. */
export async function startDevCluster(opts: DevClusterOptions): Promise<DevCluster> {
  const natsPort = await freePort();
  const grpcPort = await freePort();
  const args = [
    CLUSTER_SCRIPT,
    '--dir',
    opts.dir,
    '--nats-port',
    String(natsPort),
    '--grpc-port',
    String(grpcPort),
    '--embedder',
    opts.embedder ?? 'none',
    ...(opts.embedderReplicas === undefined
      ? []
      : ['--replicas', `embedder=${opts.embedderReplicas}`]),
    ...(opts.contextualizerReplicas === undefined
      ? []
      : ['--replicas', `contextualizer=${opts.contextualizerReplicas}`]),
    ...(opts.token === undefined ? ['--insecure-no-auth'] : ['--token', opts.token]),
    ...(opts.scanRoots ?? []).flatMap((d) => ['--scan-root', d]),
  ];
  const proc = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  let out = '';
  const append = (b: Buffer) => {
    out += b.toString();
  };
  proc.stdout?.on('data', append);
  proc.stderr?.on('data', append);
  const timeout = opts.readyTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeout;
  while (!/cluster ready/.test(out)) {
    if (proc.exitCode !== null) throw new Error(`cluster exited during start-up:\n${out}`);
    if (Date.now() >= deadline) {
      proc.kill('SIGKILL');
      throw new Error(`cluster not ready after ${timeout / 1000} s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    proc,
    exited,
    natsUrl: `nats://127.0.0.1:${natsPort}`,
    natsEnv: readEnvFile(path.join(opts.dir, 'nats.env')),
    grpc: `127.0.0.1:${grpcPort}`,
    pids: [...out.matchAll(/^up\s+\S+\s+pid (\d+)/gm)].map((m) => Number(m[1])),
    output: () => out,
  };
}
