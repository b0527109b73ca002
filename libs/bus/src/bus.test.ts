// The bus against a real nats-server (one per test, own port and store).
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { consume, type HandlerContext } from './consumer.js';
import { publishDeadLetter, readDeadLetters } from './dead-letter.js';
import { followSubject } from './follow.js';
import { publish, publishJobEvent } from './publisher.js';
import { consumerConfig, ensureStreams, type TopologyOptions } from './streams.js';
import { EVENTS, jobEventsSubject, WORK_QUEUE_NAMES, WORK_QUEUES } from './subjects.js';
import { startNatsServer } from './testing/nats-server.js';
import { formatTraceparent, newRootTrace } from './trace-context.js';

// Short deadlines so redelivery paths run in about a second.
const FAST: TopologyOptions = {
  storage: 'file',
  policies: { files: { ackWaitMs: 1000, maxDeliver: 3 }, chunks: { ackWaitMs: 1000 } },
};
// Per-test cap, so a hang fails fast instead of at the runner's 5 minutes.
const T = 20_000;
const FAST_CONSUME = { retryBackoffMs: [50], pullExpiresMs: 1000 };

async function setup(t: TestContext, topology: TopologyOptions = FAST) {
  const server = await startNatsServer();
  const conns: NatsConnection[] = [];
  const open = async () => {
    const nc = await connect({
      servers: server.url,
      reconnectTimeWait: 100,
      maxReconnectAttempts: -1,
      name: 'codesift-bus-test',
    });
    conns.push(nc);
    return { nc, js: jetstream(nc) };
  };
  const { nc, js } = await open();
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, topology);
  t.after(async () => {
    for (const c of conns) await c.close().catch(() => undefined);
    await server.stop();
  });
  return { server, nc, js, jsm, open };
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A batch of one file (the stages' tests cover larger batches). */
const file = (i: number, jobId = 'job1') => ({
  jobId,
  files: [{ path: `src/f${i}.ts`, hash: `h${i}`, root: '/repo' }],
});
const pathOf = (msg: { files: { path: string }[] }) => msg.files[0]?.path ?? '';

test('ensureStreams is idempotent, concurrent-safe and applies policy changes', {
  timeout: T,
}, async (t) => {
  const { jsm } = await setup(t);
  await Promise.all([ensureStreams(jsm, FAST), ensureStreams(jsm, FAST), ensureStreams(jsm)]);
  await ensureStreams(jsm, FAST);
  const files = await jsm.streams.info(WORK_QUEUES.files.stream);
  assert.equal(files.config.retention, 'workqueue');
  assert.deepEqual(files.config.subjects, ['codesift.work.files']);
  const streams = await jsm.streams.names().next();
  // One per work queue, plus job events and dead letters.
  assert.equal(streams.length, WORK_QUEUE_NAMES.length + 2);
  const ci = await jsm.consumers.info(WORK_QUEUES.files.stream, 'chunker');
  assert.equal(ci.config.ack_policy, 'explicit');
  assert.equal(ci.config.ack_wait, 1000 * 1e6);
  assert.equal(ci.config.max_deliver, 4); // 3 handler attempts + 1 to dead-letter timeouts
  await ensureStreams(jsm, { policies: { files: { maxAckPending: 7, maxDeliver: 2 } } });
  const updated = await jsm.consumers.info(WORK_QUEUES.files.stream, 'chunker');
  assert.equal(updated.config.max_ack_pending, 7);
  assert.equal(updated.config.max_deliver, 3);
  assert.equal(consumerConfig('files').max_deliver, 6);
});

test('publish -> consume round trip carries headers and trace context downstream', {
  timeout: T,
}, async (t) => {
  const { js, jsm } = await setup(t);
  const upstream = newRootTrace();
  const ack = await publish(js, 'files', file(1), {
    traceparent: formatTraceparent(upstream),
    tracestate: 'vendor=x',
  });
  assert.equal(ack.duplicate, false);
  // The same (job, path, hash) again is dropped by the msgID dedupe.
  assert.equal((await publish(js, 'files', file(1))).duplicate, true);

  let seen: { path: string; ctx: HandlerContext } | undefined;
  const chunker = await consume(
    js,
    'files',
    async (msg, ctx) => {
      seen = { path: pathOf(msg), ctx };
      const f = msg.files[0]!;
      await publish(
        js,
        'chunks',
        {
          jobId: msg.jobId,
          files: [{ path: f.path, hash: f.hash, chunks: [{ id: 'c1', content: 'x' }] }],
        },
        { traceparent: ctx.trace },
      );
    },
    FAST_CONSUME,
  );
  let downstream: HandlerContext | undefined;
  let chunkCount = 0;
  const ctxer = await consume(
    js,
    'chunks',
    async (msg, ctx) => {
      downstream = ctx;
      chunkCount = msg.files[0]?.chunks.length ?? 0;
    },
    FAST_CONSUME,
  );
  await waitFor('downstream delivery', () => downstream !== undefined);
  await Promise.all([chunker.stop(), ctxer.stop()]);

  assert.equal(seen?.path, 'src/f1.ts');
  assert.equal(seen?.ctx.jobId, 'job1');
  assert.equal(seen?.ctx.stage, 'chunker');
  assert.equal(seen?.ctx.deliveries, 1);
  assert.equal(seen?.ctx.headers?.get('codesift-job'), 'job1');
  assert.equal(seen?.ctx.trace.traceId, upstream.traceId);
  assert.equal(seen?.ctx.parentSpanId, upstream.spanId);
  assert.notEqual(seen?.ctx.trace.spanId, upstream.spanId);
  assert.equal(seen?.ctx.trace.traceState, 'vendor=x');
  // One trace across both hops; the second hop's parent is the first hop's span.
  assert.equal(downstream?.trace.traceId, upstream.traceId);
  assert.equal(downstream?.parentSpanId, seen?.ctx.trace.spanId);
  assert.equal(downstream?.headers?.get('tracestate'), 'vendor=x');
  assert.equal(chunkCount, 1);
  assert.equal(chunker.stats.received, 1);
  assert.equal(chunker.stats.acked, 1);
  // Work-queue retention: acked messages are gone from the stream.
  await waitFor('files stream empty', async () => {
    return (await jsm.streams.info(WORK_QUEUES.files.stream)).state.messages === 0;
  });

  await publishJobEvent(js, { jobId: 'job1', stage: 'chunker', path: 'src/f1.ts', kind: 1 });
  assert.equal((await jsm.streams.info(EVENTS.stream)).state.messages, 1);
});

test('replicas sharing the durable split the work and handle each message once', {
  timeout: T,
}, async (t) => {
  const { js, jsm, open } = await setup(t);
  const handled: string[] = [];
  const byReplica = [0, 0];
  const replicas = await Promise.all(
    [0, 1].map(async (r) => {
      const conn = await open();
      return consume(
        conn.js,
        'files',
        async (msg) => {
          await new Promise((res) => setTimeout(res, 5));
          handled.push(pathOf(msg));
          byReplica[r]!++;
        },
        { ...FAST_CONSUME, batch: 4 },
      );
    }),
  );
  for (let i = 0; i < 60; i++) await publish(js, 'files', file(i));
  await waitFor('all handled', () => handled.length >= 60);
  await Promise.all(replicas.map((r) => r.stop()));
  assert.equal(handled.length, 60);
  assert.equal(new Set(handled).size, 60);
  assert.ok(byReplica[0]! > 0 && byReplica[1]! > 0, `both replicas worked: ${byReplica}`);
  assert.equal((await jsm.streams.info(WORK_QUEUES.files.stream)).state.messages, 0);
});

test('a failing handler is retried with backoff, then dead-lettered with the reason', {
  timeout: T,
}, async (t) => {
  const { js, jsm } = await setup(t);
  const attempts: number[] = [];
  const errors: unknown[] = [];
  const c = await consume(
    js,
    'files',
    async (msg, ctx) => {
      if (pathOf(msg) === 'src/f1.ts') {
        attempts.push(ctx.deliveries);
        throw new Error('store unavailable');
      }
    },
    { ...FAST_CONSUME, onError: (err) => errors.push(err) },
  );
  await publish(js, 'files', file(1), { traceparent: newRootTrace() });
  await publish(js, 'files', file(2));
  await waitFor('dead letter', () => c.stats.deadLettered === 1);
  await c.stop();
  assert.deepEqual(attempts, [1, 2, 3]);
  assert.equal(c.stats.retried, 2);
  assert.equal(c.stats.acked, 1);
  assert.equal(errors.length, 3);
  const letters = await readDeadLetters(js, { stage: 'chunker' });
  assert.equal(letters.length, 1);
  const { letter, headers } = letters[0]!;
  assert.equal(letter.reason, 'handler: store unavailable');
  assert.equal(letter.stage, 'chunker');
  assert.equal(letter.subject, 'codesift.work.files');
  assert.equal(letter.deliveries, 3);
  assert.ok(letter.payload.length > 0);
  assert.equal(headers['codesift-job'], 'job1');
  assert.match(headers.traceparent ?? '', /^00-/);
  // term() removes the poison message from the work queue.
  await waitFor('stream empty', async () => {
    return (await jsm.streams.info(WORK_QUEUES.files.stream)).state.messages === 0;
  });
});

test('a malformed payload is dead-lettered at once and the rest keeps flowing', {
  timeout: T,
}, async (t) => {
  const { js, jsm } = await setup(t);
  const handled = new Set<string>();
  const c = await consume(js, 'files', async (msg) => void handled.add(pathOf(msg)), FAST_CONSUME);
  await publish(js, 'files', file(1));
  await js.publish(WORK_QUEUES.files.subject, new Uint8Array([0xff, 0xff, 0xff, 0xff]));
  for (let i = 2; i <= 5; i++) await publish(js, 'files', file(i));
  await waitFor('valid messages', () => handled.size === 5);
  await waitFor('dead letter', () => c.stats.deadLettered === 1);
  await c.stop();
  const [dl] = await readDeadLetters(js, { stage: 'chunker' });
  assert.match(dl!.letter.reason, /^decode: /);
  assert.equal(dl!.letter.deliveries, 1);
  assert.deepEqual([...dl!.letter.payload], [0xff, 0xff, 0xff, 0xff]);
  await waitFor('stream empty', async () => {
    return (await jsm.streams.info(WORK_QUEUES.files.stream)).state.messages === 0;
  });
});

test('a dead letter with a message id is stored once (a redelivered batch fails its bad file again)', {
  timeout: T,
}, async (t) => {
  const { js } = await setup(t);
  const letter = (reason: string) => ({
    subject: WORK_QUEUES.files.subject,
    stage: 'chunker',
    reason,
    deliveries: 1,
    payload: new Uint8Array([1, 2, 3]),
    msgId: 'job1:1:abc:dead',
  });
  assert.equal((await publishDeadLetter(js, letter('chunk: bad input'))).duplicate, false);
  assert.equal((await publishDeadLetter(js, letter('chunk: bad input'))).duplicate, true);
  await publishDeadLetter(js, { ...letter('another file'), msgId: 'job1:1:def:dead' });
  const letters = await readDeadLetters(js, { stage: 'chunker' });
  assert.deepEqual(
    letters.map((l) => l.letter.reason),
    ['chunk: bad input', 'another file'],
  );
});

test('a consumer killed mid-batch loses nothing: unacked messages go to another replica', {
  timeout: T,
}, async (t) => {
  const { js, jsm, open } = await setup(t);
  const victim = await open();
  let victimGot = 0;
  // The victim takes messages and never finishes them, as if it hung or crashed.
  const v = await consume(
    victim.js,
    'files',
    () => {
      victimGot++;
      return new Promise<void>(() => {});
    },
    { ...FAST_CONSUME, batch: 5 },
  );
  for (let i = 0; i < 20; i++) await publish(js, 'files', file(i));
  await waitFor('victim mid-batch', () => victimGot === 5);
  await victim.nc.close(); // killed: no acks, no naks, no heartbeats
  // (v never settles: its handlers hang forever, like a dead process's would.)
  void v;

  const handled: string[] = [];
  const survivor = await consume(js, 'files', async (msg) => void handled.push(pathOf(msg)), {
    ...FAST_CONSUME,
  });
  await waitFor('all 20 after redelivery', () => new Set(handled).size === 20);
  await survivor.stop();
  assert.equal(new Set(handled).size, 20);
  await waitFor('stream empty', async () => {
    return (await jsm.streams.info(WORK_QUEUES.files.stream)).state.messages === 0;
  });
});

test('heartbeats keep a slow handler from being redelivered', { timeout: T }, async (t) => {
  const { js } = await setup(t);
  let calls = 0;
  const c = await consume(
    js,
    'files',
    async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 2500)); // 2.5x ack_wait
    },
    { ...FAST_CONSUME, heartbeatMs: 300 },
  );
  await publish(js, 'files', file(1));
  await waitFor('acked', () => c.stats.acked === 1, 8000);
  await c.stop();
  assert.equal(calls, 1);
});

test('a nats-server restart mid-stream resumes; every message arrives (exactly once by id)', {
  timeout: T,
}, async (t) => {
  const { server, js, jsm } = await setup(t);
  const handled: string[] = [];
  const c = await consume(
    js,
    'files',
    async (msg) => {
      await new Promise((r) => setTimeout(r, 10));
      handled.push(pathOf(msg));
    },
    { ...FAST_CONSUME, batch: 4 },
  );
  for (let i = 0; i < 30; i++) await publish(js, 'files', file(i));
  await waitFor('some handled', () => handled.length >= 5);
  await server.restart({ hard: true });
  for (let i = 30; i < 60; i++) await publish(js, 'files', file(i));
  await waitFor('all 60 after restart', () => new Set(handled).size === 60, 20_000);
  // Nothing is left to deliver or waiting for an ack. (Not "the stream is
  // empty": after a SIGKILL, nats-server 2.9 can come back with messages
  // whose acks the consumer had recorded but whose removal from the
  // work-queue stream it had not yet written: seen under load, the consumer's
  // ack floor at 60 with 24 messages still stored. They are never delivered
  // again; deploy/README says what a killed server means.)
  await waitFor('nothing left to deliver', async () => {
    const ci = await jsm.consumers.info(WORK_QUEUES.files.stream, 'chunker');
    return ci.num_pending === 0 && ci.num_ack_pending === 0 && ci.ack_floor.stream_seq === 60;
  });
  await c.stop();
  assert.equal(new Set(handled).size, 60);
});

test('following the events of a job survives a nats-server restart: every event once, in order', {
  timeout: T,
}, async (t) => {
  const { server, js } = await setup(t);
  const jobId = '00000000-0000-4000-8000-00000000f011';
  const event = (i: number) => ({ jobId, stage: 'writer', detail: String(i) });
  for (let i = 0; i < 5; i++) await publishJobEvent(js, event(i));
  const seen: string[] = [];
  const restarts: string[] = [];
  const ac = new AbortController();
  const following = (async () => {
    for await (const m of followSubject(js, EVENTS.stream, jobEventsSubject(jobId), {
      signal: ac.signal,
      onRestart: (why) => restarts.push(why),
    })) {
      seen.push(new TextDecoder().decode(m.data).match(/\d+$/)?.[0] ?? '?');
      if (seen.length === 12) break;
    }
  })();
  await waitFor('the first five', () => seen.length === 5);
  await server.restart({ hard: true });
  // Published after the restart (the publisher retries while JetStream comes back).
  for (let i = 5; i < 12; i++) await publishJobEvent(js, event(i));
  await following;
  ac.abort();
  assert.deepEqual(
    seen,
    Array.from({ length: 12 }, (_, i) => String(i)),
  );
  assert.ok(restarts.length > 0, 'the lost consumer was replaced');
});

test('following on a closed connection ends instead of retrying forever', {
  timeout: T,
}, async (t) => {
  const { nc, js } = await setup(t);
  await nc.close();
  const started = performance.now();
  for await (const _ of followSubject(
    js,
    EVENTS.stream,
    jobEventsSubject('00000000-0000-4000-8000-0000000c105e'),
  )) {
    assert.fail('nothing to deliver');
  }
  assert.ok(performance.now() - started < 2000);
});

test('max_ack_pending bounds in-flight messages across replicas (back-pressure)', {
  timeout: T,
}, async (t) => {
  const { js, open } = await setup(t, {
    ...FAST,
    policies: { files: { ackWaitMs: 5000, maxAckPending: 3 } },
  });
  let running = 0;
  let peak = 0;
  let done = 0;
  let release = false;
  const handler = async () => {
    running++;
    peak = Math.max(peak, running);
    await waitFor('release', () => release);
    running--;
    done++;
  };
  const other = await open();
  // Each replica would take 10 at once; the server lets only 3 be unacked.
  const replicas = await Promise.all([
    consume(js, 'files', handler, { ...FAST_CONSUME, batch: 10 }),
    consume(other.js, 'files', handler, { ...FAST_CONSUME, batch: 10 }),
  ]);
  for (let i = 0; i < 12; i++) await publish(js, 'files', file(i));
  await waitFor('3 in flight', () => running === 3);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(running, 3);
  release = true;
  await waitFor('all done', () => done === 12);
  await Promise.all(replicas.map((r) => r.stop()));
  assert.equal(peak, 3);
});

test('stop() drains in-flight handlers, acks them and pulls nothing more', {
  timeout: T,
}, async (t) => {
  const { js, jsm } = await setup(t);
  const ac = new AbortController();
  let started = 0;
  const c = await consume(
    js,
    'files',
    async () => {
      started++;
      await new Promise((r) => setTimeout(r, 300));
    },
    { ...FAST_CONSUME, batch: 2, signal: ac.signal },
  );
  for (let i = 0; i < 6; i++) await publish(js, 'files', file(i));
  await waitFor('two in flight', () => started === 2);
  ac.abort();
  await c.closed;
  assert.equal(c.stats.acked, c.stats.received - c.stats.retried);
  assert.equal(c.stats.inFlight, 0);
  assert.ok(c.stats.acked >= 2 && c.stats.acked <= 4, `acked ${c.stats.acked}`);
  // Acks are asynchronous; once applied, exactly the unhandled messages remain.
  await waitFor('acks applied', async () => {
    const left = (await jsm.streams.info(WORK_QUEUES.files.stream)).state.messages;
    return left === 6 - c.stats.acked;
  });
});

test('a message whose every attempt crashed is dead-lettered, not stranded', {
  timeout: 2 * T,
}, async (t) => {
  const { js, open } = await setup(t, { policies: { files: { ackWaitMs: 1000, maxDeliver: 1 } } });
  const victim = await open();
  let got = 0;
  await consume(
    victim.js,
    'files',
    () => {
      got++;
      return new Promise<void>(() => {});
    },
    FAST_CONSUME,
  );
  await publish(js, 'files', file(1));
  await waitFor('victim got it', () => got === 1);
  await victim.nc.close(); // the only allowed attempt dies without an ack
  let survivorCalls = 0;
  const exhausted: { jobId: string; paths: string[]; reason: string }[] = [];
  const c = await consume(js, 'files', async () => void survivorCalls++, {
    ...FAST_CONSUME,
    onExhausted: (message, reason) => {
      const batch = message as { jobId: string; files: { path: string }[] };
      exhausted.push({ jobId: batch.jobId, paths: batch.files.map((f) => f.path), reason });
    },
  });
  // The server redelivers only after the dead attempt's ack wait, then the
  // survivor's next pull: seconds on a loaded machine (10 s once ran out in CI).
  await waitFor('dead letter', () => c.stats.deadLettered === 1, 30_000);
  await c.stop();
  assert.equal(survivorCalls, 0);
  // The stage is told (so its job hears the files failed) before the dead letter.
  const sent = file(1) as { jobId: string; files: { path: string }[] };
  assert.deepEqual(
    exhausted.map((e) => [e.jobId, e.paths]),
    [[sent.jobId, sent.files.map((f) => f.path)]],
  );
  assert.match(exhausted[0]!.reason, /^max deliveries: 1 attempt/);
  const [dl] = await readDeadLetters(js, { stage: 'chunker' });
  assert.match(dl!.letter.reason, /^max deliveries: 1 attempt/);
  assert.equal(dl!.letter.deliveries, 2);
});
