import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
);
export const cliBin = path.join(repoRoot, 'services', 'cli', 'bin', 'codesift.js');
/** Where the build bundles the CLI (services/cli/scripts/bundle.mjs); the launcher runs it while current. */
export const cliBundleDir = path.join(repoRoot, 'services', 'cli', 'dist', 'bundle');

/**
 * The compiled modules behind the module URLs a CLI process loaded: a file
 * of the CLI's bundle stands for the modules bundled into it (its
 * modules.json lists them per file), any other URL for itself. So a test of
 * what a command loads reads the same paths bundled or not.
 */
export function modulesBehind(urls: readonly string[]): string[] {
  const bundlePrefix = `${pathToFileURL(cliBundleDir).href}/`;
  const bundled = urls.filter((u) => u.startsWith(bundlePrefix));
  if (bundled.length === 0) return [...urls];
  const { outputs } = JSON.parse(readFileSync(path.join(cliBundleDir, 'modules.json'), 'utf8')) as {
    outputs: Record<string, string[]>;
  };
  return urls.flatMap((u) => {
    if (!u.startsWith(bundlePrefix)) return [u];
    const inputs = outputs[u.slice(bundlePrefix.length)];
    if (!inputs) throw new Error(`${u} is not a file of the bundle's modules.json`);
    return inputs.map((input) => pathToFileURL(path.resolve(cliBundleDir, input)).href);
  });
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `codesift` launcher as a child process. */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; user?: CliUser } = {},
): Promise<RunResult> {
  const child = startCli(args, opts);
  return collect(child, opts.timeoutMs ?? 120_000);
}

/** Another user to run the CLI as (spawn's uid/gid; the test must be root to switch). */
export interface CliUser {
  uid: number;
  gid: number;
}

export function startCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; user?: CliUser } = {},
): ChildProcess {
  return spawn(process.execPath, [cliBin, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
  });
}

export function collect(child: ChildProcess, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`codesift timed out after ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Resolves with the first line the child prints on stdout. */
export function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`no stdout line in ${timeoutMs} ms\n${err}`)),
      timeoutMs,
    );
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, nl));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the child exited with ${code}\n${err}`));
    });
  });
}

/** The tools `codesift mcp` offers on a local index, sorted (the remote server has all but the index-changing ones). */
export const LOCAL_MCP_TOOLS: readonly string[] = [
  'clear_index',
  'find_references',
  'find_symbol',
  'get_file_outline',
  'get_snippet',
  'index_codebase',
  'index_status',
  'search_code',
];
