// A stage's NATS credentials and its /livez and /readyz, against a real
// nats-server on a free loopback port.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WORK_QUEUES } from '@codesift/bus';
import { startNatsServer } from '@codesift/bus/testing';
import { CodesiftError } from '@codesift/core';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { LIVENESS_PATH, READINESS_PATH } from './health.js';
import { createLogger } from './log.js';
import { type RunningStage, runStage, type StageDefinition } from './run-stage.js';

const quiet = createLogger('test', { write: () => undefined });

const probe: StageDefinition = {
  name: 'probe',
  async init() {
    return { bindings: [{ queue: 'files', handler: async () => undefined }] };
  },
};

const start = (env: NodeJS.ProcessEnv) =>
  runStage(probe, {
    env: { CODESIFT_CONNECT_ATTEMPTS: '3', ...env },
    handleSignals: false,
    log: quiet,
  });

test('a server with credentials refuses a stage without them, at once, and takes one with them', async (t) => {
  const server = await startNatsServer({ args: ['--user', 'codesift', '--pass', 's3cret'] });
  t.after(() => server.stop());
  const refused = (e: unknown) =>
    e instanceof CodesiftError &&
    e.code === 'INVALID_ARGUMENT' &&
    /refused the credentials/.test(e.message) &&
    /NATS_USER/.test(e.hint ?? '');
  const started = Date.now();
  await assert.rejects(start({ NATS_URL: server.url }), refused);
  await assert.rejects(
    start({ NATS_URL: server.url, NATS_USER: 'codesift', NATS_PASSWORD: 'wrong' }),
    refused,
  );
  // Not after the retries' back-off: the credentials will not get better.
  assert.ok(Date.now() - started < 5000, `refused in ${Date.now() - started} ms`);
  const running = await start({
    NATS_URL: server.url,
    NATS_USER: 'codesift',
    NATS_PASSWORD: 's3cret',
  });
  await running.stop();
  assert.equal(await running.stopped, 0);
  // Half a pair is a configuration error, before any connection.
  await assert.rejects(
    start({ NATS_URL: server.url, NATS_USER: 'codesift' }),
    (e: unknown) => e instanceof CodesiftError && /NATS_PASSWORD is missing/.test(e.message),
  );
});

test('NATS_TOKEN authenticates against a server started with a token', async (t) => {
  const server = await startNatsServer({ args: ['--auth', 't0ken'] });
  t.after(() => server.stop());
  await assert.rejects(start({ NATS_URL: server.url }), CodesiftError);
  const running = await start({ NATS_URL: server.url, NATS_TOKEN: 't0ken' });
  await running.stop();
});

async function get(running: RunningStage, path: string) {
  const res = await fetch(`http://127.0.0.1:${running.health?.port}${path}`, {
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as { checks: Record<string, string> } };
}

async function until(what: string, check: () => Promise<boolean>, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('readiness follows NATS and the durable consumer; liveness stays up while the client reconnects', async (t) => {
  const server = await startNatsServer();
  const running = await start({
    NATS_URL: server.url,
    CODESIFT_HEALTH_PORT: '0',
    CODESIFT_HEALTH_HOST: '127.0.0.1',
  });
  // The stage first (its drain needs the server), then the server.
  t.after(async () => {
    await running.stop();
    await server.stop();
  });
  assert.ok(running.health, 'CODESIFT_HEALTH_PORT starts the health server');
  const ready = await get(running, READINESS_PATH);
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
  assert.deepEqual(ready.body.checks, { nats: 'ok', 'consumer:files': 'ok' });
  assert.equal((await get(running, LIVENESS_PATH)).status, 200);

  // nats-server gone: not ready (the ping times out), but alive: restarting
  // the process would not bring the server back.
  await server.stop({ keepStore: true });
  const down = await get(running, READINESS_PATH);
  assert.equal(down.status, 503);
  assert.notEqual(down.body.checks.nats, 'ok');
  assert.equal((await get(running, LIVENESS_PATH)).status, 200);

  // Back: the client reconnects and the stage is ready again.
  await server.restart();
  await until('ready again', async () => (await get(running, READINESS_PATH)).status === 200);

  // The durable consumer deleted on the server: not ready, and it says which.
  const nc = await connect({ servers: server.url });
  try {
    const { stream, durable } = WORK_QUEUES.files;
    await (await jetstreamManager(nc)).consumers.delete(stream, durable);
  } finally {
    await nc.close();
  }
  const lost = await get(running, READINESS_PATH);
  assert.equal(lost.status, 503);
  assert.match(lost.body.checks['consumer:files'] ?? '', /not found/i);

  assert.equal(
    (await fetch(`http://127.0.0.1:${running.health?.port}/nope`)).status,
    404,
    'other paths are not found',
  );
});

test('no CODESIFT_HEALTH_PORT, no health server; a bad one is refused', async (t) => {
  const server = await startNatsServer();
  t.after(() => server.stop());
  const running = await start({ NATS_URL: server.url });
  assert.equal(running.health, undefined);
  await running.stop();
  await assert.rejects(
    start({ NATS_URL: server.url, CODESIFT_HEALTH_PORT: 'http' }),
    /CODESIFT_HEALTH_PORT must be a port/,
  );
});
