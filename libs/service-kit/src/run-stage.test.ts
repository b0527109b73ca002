// runStage against a real nats-server, in-process (no signal handlers).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  batchPaths,
  decodeWork,
  ensureStreams,
  publish,
  publishJobEvent,
  readDeadLetters,
} from '@codesift/bus';
import { startNatsServer } from '@codesift/bus/testing';
import { watchJob } from '@codesift/cluster-services';
import { JobEvent_Kind } from '@codesift/proto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createLogger } from './log.js';
import { runStage, type StageDefinition } from './run-stage.js';

const quiet = createLogger('test', { write: () => undefined });

test('runs a stage over batches: a bad file fails alone, a failing batch fails every file, stop drains', async (t) => {
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
            async handler(batch, ctx) {
              const done: string[] = [];
              for (const work of batch.files) {
                if (work.path === 'poison.ts') throw new Error('store unavailable');
                if (work.path === 'bad.ts') {
                  await ctx.fileFailed(work, 'cannot chunk bad.ts');
                  continue;
                }
                if (work.path === 'slow.ts') {
                  entered = true;
                  await slow;
                }
                done.push(work.path);
              }
              handled.push(...done);
              await publishJobEvent(js, {
                jobId: batch.jobId,
                kind: JobEvent_Kind.FILES,
                files: done.map((path) => ({ path, kind: JobEvent_Kind.FILE_DONE, chunks: 1n })),
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

  // One batch with a bad file among good ones, one whose only attempt fails.
  const files = (...paths: string[]) => paths.map((path, i) => ({ path, hash: `h${i}` }));
  await publish(js, 'files', { jobId: 'j1', files: files('a.ts', 'bad.ts', 'b.ts') });
  await publish(js, 'files', { jobId: 'j1', files: files('c.ts', 'poison.ts') });
  await publishJobEvent(js, { jobId: 'j1', kind: JobEvent_Kind.JOB_PLANNED, filesTotal: 5n });
  const progress = await watchJob(js, 'j1', { timeoutMs: 10_000 });
  assert.equal(progress.filesDone, 2);
  assert.equal(progress.filesFailed, 3);
  assert.equal(progress.chunks, 2);
  assert.deepEqual([...progress.seen].sort(), ['a.ts', 'b.ts', 'bad.ts', 'c.ts', 'poison.ts']);
  assert.equal(progress.failures.get('bad.ts'), 'cannot chunk bad.ts');
  // Every file of the batch that failed for good is reported, not only the culprit.
  assert.match(progress.failures.get('c.ts') ?? '', /store unavailable/);
  assert.match(progress.failures.get('poison.ts') ?? '', /store unavailable/);
  assert.deepEqual(handled.sort(), ['a.ts', 'b.ts']);

  // Dead letters: the bad file alone (a replayable batch of one), and the failed batch whole.
  // The consumer loop stores the failed batch's letter just after the job hears of it.
  let letters = await readDeadLetters(js, { stage: 'chunker', expiresMs: 1000 });
  for (let i = 0; letters.length < 2 && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    letters = await readDeadLetters(js, { stage: 'chunker', expiresMs: 1000 });
  }
  const byReason = new Map(letters.map((l) => [l.letter.reason, l.letter]));
  const bad = byReason.get('cannot chunk bad.ts');
  assert.ok(bad, `dead letter for bad.ts among ${[...byReason.keys()]}`);
  assert.deepEqual(batchPaths(decodeWork('files', bad.payload)), ['bad.ts']);
  assert.equal(decodeWork('files', bad.payload).jobId, 'j1');
  const poison = [...byReason.values()].find((l) => /store unavailable/.test(l.reason));
  assert.ok(poison, 'the failed batch is dead-lettered');
  assert.deepEqual(batchPaths(decodeWork('files', poison.payload)), ['c.ts', 'poison.ts']);
  assert.equal(letters.length, 2);

  // A message still being handled when stop() is called finishes first.
  await publish(js, 'files', { jobId: 'j2', files: files('slow.ts') });
  while (!entered) await new Promise((r) => setTimeout(r, 10));
  const stopping = running.stop('test');
  setTimeout(release, 200);
  await stopping;
  assert.ok(handled.includes('slow.ts'), 'in-flight message finished before the stop');
  assert.equal(closed, true);
  assert.equal(await running.stopped, 0);
  assert.equal(running.runtime.nc.isClosed(), true);
});

test('what a handler returns is stored before the ack: failures, outputs fitted under the limit, done files', async (t) => {
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  const running: { stop(): Promise<void> }[] = [];
  t.after(async () => {
    await Promise.all(running.map((r) => r.stop()));
    await nc.close();
    await server.stop();
  });
  await ensureStreams(await jetstreamManager(nc));
  const js = jetstream(nc);

  // More than 3/4 of the server's max_payload (1 MiB by default): no message can carry it.
  const huge = 'x'.repeat(900 * 1024);
  const chunk = (path: string, content: string) => ({
    id: `${path}#1`,
    path,
    language: 'typescript',
    range: { startLine: 1, endLine: 1 },
    kind: 'block',
    content,
  });
  const probe: StageDefinition = {
    name: 'probe',
    async init() {
      return {
        bindings: [
          {
            queue: 'chunks',
            async handler(batch) {
              const good = batch.files.filter((f) => f.path !== 'bad.ts');
              return {
                failed: batch.files
                  .filter((f) => f.path === 'bad.ts')
                  .map((file) => ({ file, reason: 'cannot read bad.ts' })),
                out: [{ queue: 'contextualized', files: good }],
                done: good
                  .filter((f) => f.path !== 'huge.ts')
                  .map((f) => ({ path: f.path, chunks: f.chunks.length })),
              };
            },
          },
        ],
      };
    },
  };
  // What the probe passes on, as the next stage sees it.
  const passedOn: string[] = [];
  const next: StageDefinition = {
    name: 'next',
    async init() {
      return {
        bindings: [
          {
            queue: 'contextualized',
            async handler(batch) {
              passedOn.push(...batchPaths(batch));
            },
          },
        ],
      };
    },
  };
  const env = { NATS_URL: server.url, CODESIFT_PULL_EXPIRES_MS: '1000' };
  for (const stage of [probe, next]) {
    running.push(await runStage(stage, { env, handleSignals: false, log: quiet }));
  }

  const files = [
    { path: 'a.ts', chunks: [chunk('a.ts', 'const a = 1;')] },
    { path: 'bad.ts', chunks: [chunk('bad.ts', '?')] },
    { path: 'huge.ts', chunks: [chunk('huge.ts', huge)] },
    { path: 'b.ts', chunks: [chunk('b.ts', 'const b = 2;'), chunk('b.ts', 'const c = 3;')] },
  ];
  await publish(js, 'chunks', { jobId: 'j3', files });
  await publishJobEvent(js, { jobId: 'j3', kind: JobEvent_Kind.JOB_PLANNED, filesTotal: 4n });
  const progress = await watchJob(js, 'j3', { timeoutMs: 30_000 });
  assert.equal(progress.filesDone, 2);
  assert.equal(progress.chunks, 3);
  assert.equal(progress.failures.get('bad.ts'), 'cannot read bad.ts');
  assert.match(
    progress.failures.get('huge.ts') ?? '',
    /too large for one message on contextualized/,
  );

  for (let i = 0; passedOn.length < 2 && i < 300; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(passedOn.sort(), ['a.ts', 'b.ts']);
  // Each failed file is dead-lettered alone, as a batch of the consumed queue.
  const letters = await readDeadLetters(js, { stage: 'contextualizer', expiresMs: 1000 });
  assert.deepEqual(letters.map((l) => batchPaths(decodeWork('chunks', l.letter.payload))).sort(), [
    ['bad.ts'],
    ['huge.ts'],
  ]);
});
