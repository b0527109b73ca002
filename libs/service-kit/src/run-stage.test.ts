// runStage against a real nats-server, in-process (no signal handlers).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ensureStreams, publish, publishJobEvent } from '@codesift/bus';
import { startNatsServer } from '@codesift/bus/testing';
import { JobEvent_Kind } from '@codesift/proto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { watchJob } from './job-progress.js';
import { createLogger } from './log.js';
import { runStage, type StageDefinition } from './run-stage.js';

const quiet = createLogger('test', { write: () => undefined });

test('runs a stage, reports files that fail for good, and stops after in-flight work', async (t) => {
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  t.after(async () => {
    await nc.close();
    await server.stop();
  });
  const topology = { policies: { files: { maxDeliver: 1 } } };
  await ensureStreams(await jetstreamManager(nc), topology);
  const js = jetstream(nc);

  const handled: string[] = [];
  let closed = false;
  let entered = false;
  let release!: () => void;
  const slow = new Promise<void>((r) => {
    release = r;
  });
  const stage: StageDefinition = {
    name: 'probe',
    async init() {
      return {
        bindings: [
          {
            queue: 'files',
            async handler(work) {
              if (work.path === 'bad.ts') throw new Error('cannot chunk');
              if (work.path === 'slow.ts') {
                entered = true;
                await slow;
              }
              handled.push(work.path);
              await publishJobEvent(js, {
                jobId: work.jobId,
                path: work.path,
                kind: JobEvent_Kind.FILE_DONE,
              });
            },
          },
        ],
        close: () => {
          closed = true;
        },
      };
    },
  };
  const running = await runStage(stage, {
    env: { NATS_URL: server.url },
    handleSignals: false,
    topology,
    log: quiet,
  });

  await publish(js, 'files', { jobId: 'j1', path: 'ok.ts', hash: 'h1' });
  await publish(js, 'files', { jobId: 'j1', path: 'bad.ts', hash: 'h2' });
  await publishJobEvent(js, { jobId: 'j1', kind: JobEvent_Kind.JOB_PLANNED, filesTotal: 2n });
  const progress = await watchJob(js, 'j1', { timeoutMs: 10_000 });
  assert.equal(progress.filesDone, 1);
  assert.equal(progress.filesFailed, 1);
  assert.match(progress.failures.get('bad.ts') ?? '', /cannot chunk/);

  // A message still being handled when stop() is called finishes first.
  await publish(js, 'files', { jobId: 'j2', path: 'slow.ts', hash: 'h3' });
  while (!entered) await new Promise((r) => setTimeout(r, 10));
  const stopping = running.stop('test');
  setTimeout(release, 200);
  await stopping;
  assert.ok(handled.includes('slow.ts'), 'in-flight message finished before the stop');
  assert.equal(closed, true);
  assert.equal(await running.stopped, 0);
  assert.equal(running.runtime.nc.isClosed(), true);
});
