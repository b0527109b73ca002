#!/usr/bin/env node
// The bus and cluster tests start their own nats-server on loopback. This
// makes sure one is installed before `npm test`: found on PATH (or Debian's
// /usr/sbin), else installed from Debian's packages when this machine can
// (root with apt-get). Anywhere else it says what to install and exits 0, so
// the tests that need the server fail with their own clear message.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

function onPath(bin) {
  for (const dir of (process.env.PATH ?? '')
    .split(path.delimiter)
    .concat(['/usr/sbin', '/usr/local/sbin'])) {
    if (dir && existsSync(path.join(dir, bin))) return path.join(dir, bin);
  }
  return null;
}

const found = onPath('nats-server');
if (found) {
  process.exit(0);
}
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (process.platform !== 'linux' || !onPath('apt-get') || !isRoot) {
  console.warn(
    'ensure-nats-server: nats-server not found; install it (Debian/Ubuntu: apt-get install nats-server, macOS: brew install nats-server) for the bus tests',
  );
  process.exit(0);
}
console.log('ensure-nats-server: installing nats-server from Debian packages');
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
let r = spawnSync('apt-get', ['install', '-y', '-qq', 'nats-server'], { stdio: 'inherit', env });
if (r.status !== 0) {
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  r = spawnSync('apt-get', ['install', '-y', '-qq', 'nats-server'], { stdio: 'inherit', env });
}
if (r.status !== 0 || !onPath('nats-server')) {
  console.error('ensure-nats-server: could not install nats-server with apt-get');
  process.exit(1);
}
