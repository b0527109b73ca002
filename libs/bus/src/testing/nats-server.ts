// Test helper: a real nats-server with JetStream on a free loopback port and
// a private store directory, restartable on the same port and store.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface NatsServerHandle {
  /** nats://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** Kills the server (SIGKILL when `hard`) and, unless `keepStore`, removes its store. */
  stop(opts?: { hard?: boolean; keepStore?: boolean }): Promise<void>;
  /** Stops and starts again on the same port with the same store. */
  restart(opts?: { hard?: boolean }): Promise<void>;
}

const CANDIDATES = ['nats-server', '/usr/sbin/nats-server', '/usr/local/bin/nats-server'];

function findBinary(): string {
  const fromEnv = process.env.NATS_SERVER_BIN;
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const c of fromEnv ? [fromEnv, ...CANDIDATES] : CANDIDATES) {
    const paths = c.includes('/') ? [c] : dirs.map((d) => path.join(d, c));
    for (const p of paths) {
      try {
        accessSync(p, constants.X_OK);
        return p;
      } catch {
        // try the next one
      }
    }
  }
  throw new Error(
    'nats-server not found: the bus tests need a real NATS server with JetStream. ' +
      'Install it with `apt-get install nats-server` (Debian/Ubuntu) or set NATS_SERVER_BIN.',
  );
}

/** A free TCP port on loopback, found by binding port 0 and closing again. */
export async function freePort(): Promise<number> {
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

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

export interface NatsServerOptions {
  startTimeoutMs?: number;
  /** More command-line arguments, e.g. `--user u --pass p` or `-c <config file>`. */
  args?: string[];
  /** The server's environment (a config file may read variables from it); default this process's. */
  env?: NodeJS.ProcessEnv;
}

export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const bin = findBinary();
  const port = await freePort();
  const storeDir = mkdtempSync(path.join(tmpdir(), 'codesift-nats-'));
  const timeout = opts.startTimeoutMs ?? 10_000;
  let child: ChildProcess | undefined;
  let output = '';

  const launch = async (): Promise<void> => {
    output = '';
    const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir];
    const proc = spawn(bin, [...(opts.args ?? []), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: opts.env ?? process.env,
    });
    child = proc;
    // A test runner that exits without running after-hooks (a timeout, a
    // crash) must not leave the server behind.
    const reap = () => proc.kill('SIGKILL');
    process.once('exit', reap);
    proc.once('exit', () => process.off('exit', reap));
    const keep = (b: Buffer) => {
      output = (output + b.toString()).slice(-4000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    let exited = false;
    proc.once('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + timeout;
    while (Date.now() < deadline) {
      if (exited) throw new Error(`nats-server exited during start-up:\n${output}`);
      // JetStream is ready once the server logs it; the port alone opens a
      // little earlier.
      if ((await canConnect(port)) && /Server is ready/.test(output)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    proc.kill('SIGKILL');
    throw new Error(
      `nats-server did not accept connections on port ${port} within ${timeout} ms:\n${output}`,
    );
  };

  const kill = async (hard: boolean): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(hard ? 'SIGKILL' : 'SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop(stopOpts = {}) {
      await kill(stopOpts.hard ?? false);
      if (!stopOpts.keepStore) rmSync(storeDir, { recursive: true, force: true });
    },
    async restart(restartOpts = {}) {
      await kill(restartOpts.hard ?? false);
      await launch();
    },
  };
}
