#!/usr/bin/env node
// Container health checks for the codesift image, with nothing but Node and
// the workspace's own packages (no curl, grpc_health_probe or procps in the
// slim image). Exit 0 = healthy, 1 = not.
//
//   node deploy/healthcheck.mjs grpc <host:port>       grpc.health.v1 Check('') is SERVING
//   node deploy/healthcheck.mjs http <url>             GET answers 2xx
//   node deploy/healthcheck.mjs process <name> [file]  a process whose command line contains
//                                                      <name> runs (and <file> exists)
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const TIMEOUT_MS = 3000;

async function grpc(address) {
  const { connectCodesift } = await import('@codesift/grpc');
  const client = connectCodesift(address);
  try {
    return (await client.checkHealth('', { deadlineMs: TIMEOUT_MS })) === 'SERVING';
  } finally {
    client.close();
  }
}

async function http(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  return res.ok;
}

function processRuns(name, file) {
  if (file && !existsSync(file)) return false;
  const self = String(process.pid);
  return readdirSync('/proc').some((pid) => {
    if (!/^\d+$/.test(pid) || pid === self) return false;
    try {
      // Arguments are NUL-separated; a space-joined line matches "codesift-worker writer".
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(name);
    } catch {
      return false; // the process ended while we looked
    }
  });
}

const [mode, target, extra] = process.argv.slice(2);
const checks = { grpc, http, process: processRuns };
if (!checks[mode] || !target) {
  process.stderr.write(
    'usage: healthcheck.mjs grpc <host:port> | http <url> | process <name> [file]\n',
  );
  process.exit(2);
}
try {
  process.exit((await checks[mode](target, extra)) ? 0 : 1);
} catch (err) {
  process.stderr.write(`healthcheck: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
