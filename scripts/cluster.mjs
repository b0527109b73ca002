#!/usr/bin/env node
// The development cluster on one machine: a nats-server with JetStream and
// deploy/nats-auth.conf (max_payload, and a user and password: loopback is
// open to every local user), every pipeline stage (the scanner and
// symbol services included) as its own `codesift-worker` process, and the
// query service (`codesift-query`) answering gRPC on the SQLite index the
// writer fills. Data and logs go under --dir; Ctrl-C (or SIGTERM) stops
// everything and exits 0.
//
//   CODESIFT_TOKEN=<secret> npm run cluster -- [--dir .codesift-cluster]
//                      [--nats-port 4222] [--grpc-port 50051]
//                      [--embedder none|builtin|auto|fixed:<ms>] [--replicas embedder=3]
//                      [--scan-root <dir>]... [--token <secret> | --insecure-no-auth]
//
// Then: (set -a; . .codesift-cluster/nats.env; codesift index --remote nats://127.0.0.1:4222 <dir>)
//       codesift search --remote 127.0.0.1:50051 --token <secret> "query"
// or IndexService.StartIndex on 127.0.0.1:50051 with a root under a scan
// root (default: the directory the cluster runs in), which the scanner
// service runs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  createWriteStream,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { natsAuthFromEnv } from '@codesift/bus';
import { resolveServerAuth, scanRootsFromEnv } from '@codesift/core';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORKER = path.join(repo, 'services', 'worker', 'bin', 'codesift-worker.js');
const QUERY = path.join(repo, 'services', 'query', 'bin', 'codesift-query.js');
// The deployments' NATS settings (max_payload), so batches here are sized as there.
// nats.conf plus `authorization` from the server's NATS_USER/NATS_PASSWORD.
const NATS_CONF = path.join(repo, 'deploy', 'nats-auth.conf');
const STAGES = ['scanner', 'chunker', 'contextualizer', 'embedder', 'writer', 'symbols'];
const STOP_GRACE_MS = 10_000;
const START_TIMEOUT_MS = 60_000;

const HELP = `Usage: npm run cluster -- [options]

Starts a development cluster on this machine: nats-server (JetStream, with
deploy/nats-auth.conf), one process per pipeline stage (${STAGES.join(', ')})
and the query service (codesift-query: search, symbols, index jobs over
gRPC) on the cluster's SQLite index. Ctrl-C stops it.

Options:
  --dir <dir>             data and logs (default .codesift-cluster in the cwd):
                          <dir>/index.db, <dir>/nats, <dir>/logs/<service>.log
  --nats-port <n>         NATS port (default 4222)
  --grpc-port <n>         gRPC port of the query service (default 50051)
  --embedder <mode>       none (keyword only), builtin or auto (default none);
                          fixed:<ms> is for benchmarks only: a stand-in model
                          that spends <ms> per chunk, one batch at a time per
                          embedder process (like one GPU each), hash vectors
  --replicas <stage=n>    run n processes of a stage, e.g. embedder=3 (repeatable)
  --scan-root <dir>       a directory index jobs may name roots under (repeatable;
                          relative roots resolve against the first; symlinks and ..
                          are resolved before the check). Default: $CODESIFT_SCAN_ROOTS
                          (${path.delimiter}-separated), else the directory the cluster runs in
  --token <secret>        bearer token the query service requires on every gRPC call
                          but health (default: $CODESIFT_TOKEN; the environment keeps
                          it out of the process list)
  --insecure-no-auth      run the query service (on 127.0.0.1) without a token
  -h, --help              show this help

NATS requires a user and password even on loopback, where any local user
could otherwise queue jobs, forge the writer's batches or delete the streams:
$NATS_USER and $NATS_PASSWORD when both are set, else a generated password
($NATS_TOKEN is refused: the server is configured with a user).
Either way they are written to <dir>/nats.env (mode 0600) for
\`codesift index --remote\` and other NATS clients.

The query service refuses to start without a token unless --insecure-no-auth
is given. StartIndex with a root outside the scan roots is PERMISSION_DENIED
and the scanner refuses such jobs too (anything on NATS can queue one).
`;

function usage(message) {
  process.stderr.write(`cluster: ${message}\n\n${HELP}`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      dir: { type: 'string', default: '.codesift-cluster' },
      'nats-port': { type: 'string', default: '4222' },
      'grpc-port': { type: 'string', default: '50051' },
      embedder: { type: 'string', default: 'none' },
      replicas: { type: 'string', multiple: true, default: [] },
      'scan-root': { type: 'string', multiple: true, default: [] },
      token: { type: 'string' },
      'insecure-no-auth': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (err) {
  usage(err.message);
}
if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

function port(name) {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    usage(`--${name} must be a port from 1 to 65535, got ${args[name]}`);
  }
  return n;
}
const natsPort = port('nats-port');
const grpcPort = port('grpc-port');
if (
  !['none', 'builtin', 'auto'].includes(args.embedder) &&
  !/^fixed:\d+(\.\d+)?$/.test(args.embedder)
) {
  usage(`--embedder must be none, builtin, auto or fixed:<ms>, got ${args.embedder}`);
}
const replicas = Object.fromEntries(STAGES.map((s) => [s, 1]));
for (const spec of args.replicas.flatMap((r) => r.split(','))) {
  const m = /^([a-z]+)=(\d+)$/.exec(spec.trim());
  if (!m || !(m[1] in replicas) || Number(m[2]) < 1) {
    usage(`--replicas takes <stage>=<n> with a stage of ${STAGES.join(', ')}, got ${spec}`);
  }
  replicas[m[1]] = Number(m[2]);
}

// The query service's rule (@codesift/core), checked here so a missing token
// stops the script before anything starts.
let token;
try {
  token =
    resolveServerAuth({
      token: args.token ?? envVar('CODESIFT_TOKEN'),
      insecureNoAuth: args['insecure-no-auth'],
      host: '127.0.0.1',
      server: 'the cluster (its query service)',
    }) ?? undefined;
} catch (err) {
  usage(`${err.message}${err.hint ? `\n  hint: ${err.hint}` : ''}`);
}
const scanRoots =
  args['scan-root'].length > 0
    ? args['scan-root'].map((d) => path.resolve(d))
    : scanRootsFromEnv({ CODESIFT_SCAN_ROOTS: envVar('CODESIFT_SCAN_ROOTS') }, process.cwd());

const natsAuth = natsCredentials();
/** What every process of the cluster, NATS itself included, reads its credentials from. */
const natsClientEnv = { NATS_USER: natsAuth.user, NATS_PASSWORD: natsAuth.password };

const dir = path.resolve(args.dir);
const logDir = path.join(dir, 'logs');
const indexPath = path.join(dir, 'index.db');
const natsUrl = `nats://127.0.0.1:${natsPort}`;
const grpcAddress = `127.0.0.1:${grpcPort}`;
mkdirSync(logDir, { recursive: true });
mkdirSync(path.join(dir, 'nats'), { recursive: true });
const natsEnvFile = path.join(dir, 'nats.env');
writeFileSync(natsEnvFile, `NATS_USER=${natsAuth.user}\nNATS_PASSWORD=${natsAuth.password}\n`, {
  mode: 0o600,
});
// The mode above applies only when the file is created: an older one keeps its own.
chmodSync(natsEnvFile, 0o600);

/**
 * The NATS user every process of this cluster connects as. A loopback port is
 * still open to every local user, and NATS without credentials would let any
 * of them bypass the query service's token: queue jobs, forge the writer's
 * batches, delete the streams.
 */
function natsCredentials() {
  // The clients' own reading of the variables (they go together, a token or a user):
  // what the cluster's processes will do with them.
  let auth;
  try {
    auth = natsAuthFromEnv({
      NATS_USER: envVar('NATS_USER'),
      NATS_PASSWORD: envVar('NATS_PASSWORD'),
      NATS_TOKEN: envVar('NATS_TOKEN'),
    });
  } catch (err) {
    usage(err.message);
  }
  if (auth.token !== undefined) {
    usage(
      'the development cluster authenticates NATS with NATS_USER/NATS_PASSWORD; unset NATS_TOKEN',
    );
  }
  if (auth.user !== undefined) {
    for (const [name, value] of [
      ['NATS_USER', auth.user],
      ['NATS_PASSWORD', auth.pass],
    ]) {
      if (!natsConfigString(value)) {
        usage(
          `${name} must start with a letter and hold only letters, digits and . _ ~ - (and not be true/false/yes/no/on/off): nats-auth.conf reads it as a config value, so one like 8e1f... is a number and the server refuses to start`,
        );
      }
    }
    return { user: auth.user, password: auth.pass };
  }
  // A letter first: hex alone can begin like a number (`1e5...`), which nats-server's
  // config parser reads as one.
  return { user: 'codesift', password: `k${randomBytes(24).toString('hex')}` };
}

/** True for a value nats-server's config parser reads back as this very string. */
function natsConfigString(value) {
  return /^[A-Za-z][A-Za-z0-9._~-]*$/.test(value) && !/^(true|false|yes|no|on|off)$/i.test(value);
}

/** A variable of this script's own environment (not a build input). */
function envVar(name) {
  return process.env[name];
}

function findNatsServer() {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const fromEnv = envVar('NATS_SERVER_BIN');
  const candidates = [
    ...(fromEnv ? [fromEnv] : []),
    ...dirs.map((d) => path.join(d, 'nats-server')),
    '/usr/sbin/nats-server',
    '/usr/local/bin/nats-server',
  ];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // next
    }
  }
  process.stderr.write(
    'cluster: nats-server not found; install it (apt-get install nats-server, or `npm test` does it as root) or set NATS_SERVER_BIN\n',
  );
  process.exit(1);
}

/** Every child: name, process, log file, and a promise of "up". */
const services = [];
let stopping = false;

function start(name, command, argv, env, isReady) {
  const logFile = path.join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  // Own process group: Ctrl-C reaches only this script, which stops the
  // children in order (services first, NATS last).
  const proc = spawn(command, argv, {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const svc = { name, proc, logFile, exited: null };
  let seen = '';
  svc.up = new Promise((resolve, reject) => {
    const onData = (b) => {
      log.write(b);
      if (seen === null) return;
      seen = (seen + b.toString()).slice(-8000);
      if (isReady(seen)) {
        seen = null;
        resolve();
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('error', reject);
    svc.exited = new Promise((done) =>
      proc.once('exit', (code, signal) => {
        log.end();
        reject(new Error(`${name} exited during start-up`));
        done({ code, signal });
        if (!stopping) {
          process.stderr.write(
            `cluster: ${name} (pid ${proc.pid}) exited unexpectedly (${signal ?? `code ${code}`}); see ${logFile}\n${tail(logFile)}`,
          );
          void stopAll(1);
        }
      }),
    );
  });
  svc.up.catch(() => undefined);
  services.push(svc);
  return svc;
}

function tail(file, lines = 8) {
  try {
    const text = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines);
    return text.length ? `${text.map((l) => `  | ${l}`).join('\n')}\n` : '';
  } catch {
    return '';
  }
}

function announce(svc) {
  process.stdout.write(
    `up   ${svc.name.padEnd(16)} pid ${String(svc.proc.pid).padEnd(8)} ${path.relative(process.cwd(), svc.logFile)}\n`,
  );
}

function alive(svc) {
  return svc.proc.exitCode === null && svc.proc.signalCode === null;
}

async function stopGroup(group) {
  const live = group.filter(alive);
  for (const s of live) s.proc.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const s of live) {
      if (alive(s)) {
        process.stderr.write(`cluster: ${s.name} did not stop in time, killing it\n`);
        s.proc.kill('SIGKILL');
      }
    }
  }, STOP_GRACE_MS);
  await Promise.all(live.map((s) => s.exited));
  clearTimeout(timer);
}

let stopped;
function stopAll(code) {
  if (stopped) return stopped;
  stopping = true;
  stopped = (async () => {
    process.stdout.write('stopping the cluster...\n');
    // The stages drain through NATS, so NATS goes last.
    await stopGroup(services.filter((s) => s.name !== 'nats'));
    await stopGroup(services.filter((s) => s.name === 'nats'));
    process.stdout.write(`cluster stopped${code ? ' (after a failure)' : ''}\n`);
    process.exit(code);
  })();
  return stopped;
}

let signals = 0;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    signals++;
    if (signals > 1) {
      // A second Ctrl-C: no more waiting.
      for (const s of services) if (alive(s)) s.proc.kill('SIGKILL');
      process.exit(130);
    }
    void stopAll(0);
  });
}
// Last resort if this script dies of an error: no orphans.
process.on('exit', () => {
  for (const s of services) if (alive(s)) s.proc.kill('SIGKILL');
});

async function main() {
  const nats = start(
    'nats',
    findNatsServer(),
    // Flags after -c win over the file: it only raises max_payload.
    [
      '-c',
      NATS_CONF,
      '-a',
      '127.0.0.1',
      '-p',
      String(natsPort),
      '-js',
      '-sd',
      path.join(dir, 'nats'),
    ],
    // Read by nats-auth.conf's `authorization` ($NATS_USER, $NATS_PASSWORD).
    natsClientEnv,
    (out) => /Server is ready/.test(out),
  );
  await nats.up;
  announce(nats);

  const workerEnv = {
    NATS_URL: natsUrl,
    ...natsClientEnv,
    CODESIFT_INDEX: indexPath,
    CODESIFT_EMBEDDER: args.embedder,
    // The scanner and the query service check index roots against the same list.
    CODESIFT_SCAN_ROOTS: scanRoots.join(path.delimiter),
  };
  const stageReady = (out) => /"msg":"started"/.test(out);
  const stages = [];
  for (const stage of STAGES) {
    for (let i = 1; i <= replicas[stage]; i++) {
      const name = replicas[stage] > 1 ? `${stage}-${i}` : stage;
      const svc = start(name, process.execPath, [WORKER, stage], workerEnv, stageReady);
      stages.push(svc.up.then(() => announce(svc)));
    }
  }
  await Promise.all(stages);

  // The writer has created the index file when it reports "started", so the
  // query service can open it; it reads every later commit (SQLite WAL) and
  // reopens the index once the writer records an embedder. fixed:<ms>
  // vectors are hashes no query could match: it searches by keyword then.
  const queryEnv = {
    NATS_URL: natsUrl,
    ...natsClientEnv,
    CODESIFT_INDEX: indexPath,
    CODESIFT_GRPC_HOST: '127.0.0.1',
    CODESIFT_GRPC_PORT: String(grpcPort),
    CODESIFT_EMBEDDER: args.embedder,
    CODESIFT_SCAN_ROOTS: scanRoots.join(path.delimiter),
    ...(token === undefined
      ? { CODESIFT_TOKEN: '', CODESIFT_INSECURE_NO_AUTH: '1' }
      : { CODESIFT_TOKEN: token }),
  };
  const query = start('query', process.execPath, [QUERY], queryEnv, (out) =>
    /"msg":"listening"/.test(out),
  );
  await query.up;
  announce(query);

  process.stdout.write(
    [
      '',
      `codesift cluster ready: NATS ${natsUrl} · gRPC ${grpcAddress} · index ${indexPath}`,
      `  index:  (set -a; . ${natsEnvFile}; codesift index --remote ${natsUrl} <dir>)`,
      `  NATS credentials: ${natsEnvFile} (NATS_USER, NATS_PASSWORD; readable by you alone)`,
      `  search: codesift search --remote ${grpcAddress} "<query>"${token === undefined ? '' : '   (token: CODESIFT_TOKEN or --token)'}`,
      `  StartIndex roots must lie under: ${scanRoots.join(', ')}`,
      ...(token === undefined ? ['  gRPC without authentication (--insecure-no-auth)'] : []),
      `  logs:   ${logDir}`,
      '  Ctrl-C stops the cluster.',
      '',
    ].join('\n'),
  );
}

const startTimer = setTimeout(() => {
  process.stderr.write(`cluster: not up after ${START_TIMEOUT_MS / 1000} s; see ${logDir}\n`);
  void stopAll(1);
}, START_TIMEOUT_MS);
main()
  .then(() => clearTimeout(startTimer))
  .catch((err) => {
    clearTimeout(startTimer);
    if (stopping) return;
    process.stderr.write(`cluster: ${err.message}\n`);
    void stopAll(1);
  });
