// Cluster index jobs against a real nats-server: start puts a request on
// the jobs queue, and the job's status follows its events to the end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeWork, ensureStreams, publishJobEvent, WORK_QUEUES } from '@codesift/bus';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { JobEvent_Kind } from '@codesift/proto';
import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type ClusterJobStatus, createClusterIndexJobs } from './cluster-index-jobs.js';

async function collect(it: AsyncIterable<ClusterJobStatus>): Promise<ClusterJobStatus[]> {
  const out: ClusterJobStatus[] = [];
  for await (const s of it) out.push(s);
  return out;
}

describe('cluster index jobs', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    await ensureStreams(await jetstreamManager(nc));
    js = jetstream(nc);
  });
  after(async () => {
    await nc?.close();
    await server?.stop();
  });

  /** The next request on the jobs queue, as the scanner service receives it. */
  async function nextRequest() {
    const consumer = await js.consumers.get(WORK_QUEUES.jobs.stream, WORK_QUEUES.jobs.durable);
    const m = await consumer.next({ expires: 5000 });
    assert.ok(m, 'a job request is queued');
    m.ack();
    return decodeWork('jobs', m.data);
  }

  test('start queues a request; watch follows the events to success', async () => {
    const jobs = createClusterIndexJobs({ js });
    try {
      await assert.rejects(jobs.start({ root: '/x', vectors: false }), {
        code: 'INVALID_ARGUMENT',
      });
      const first = await jobs.start({ root: '/checkouts/repo', rebuild: true });
      assert.equal(first.state, 'queued');
      assert.equal(first.phase, 'queued');
      assert.equal(first.root, '/checkouts/repo');
      // Still waiting for a scanner, the job is already visible to another replica.
      const early = createClusterIndexJobs({ js });
      try {
        const queued = await early.get(first.jobId);
        assert.equal(queued?.state, 'queued');
        assert.equal(queued?.root, '/checkouts/repo');
        // "The latest job" is the cluster's, whichever replica started it.
        assert.equal((await early.latest())?.jobId, first.jobId);
      } finally {
        await early.close();
      }
      const req = await nextRequest();
      assert.equal(req.jobId, first.jobId);
      assert.deepEqual(
        req.files.map((f) => [f.path, f.rebuild]),
        [['/checkouts/repo', true]],
      );
      assert.equal((await jobs.latest())?.jobId, first.jobId);
      assert.equal(await jobs.get('unknown'), undefined);
      assert.equal(await jobs.get('00000000-0000-4000-8000-000000000000'), undefined);

      const watched = collect(jobs.watch(first.jobId));
      const id = first.jobId;
      await publishJobEvent(js, {
        jobId: id,
        stage: 'writer',
        kind: JobEvent_Kind.FILES,
        files: [
          { path: 'a.ts', kind: JobEvent_Kind.FILE_DONE, chunks: 3n, symbols: 2n },
          { path: 'b.ts', kind: JobEvent_Kind.FILE_FAILED, detail: 'bad utf-8' },
        ],
      });
      await publishJobEvent(js, {
        jobId: id,
        stage: 'scanner',
        kind: JobEvent_Kind.JOB_PLANNED,
        filesTotal: 4n,
        detail: JSON.stringify({ root: '/checkouts/repo', sent: 3, deleted: 1 }),
      });
      await publishJobEvent(js, {
        jobId: id,
        stage: 'writer',
        kind: JobEvent_Kind.FILES,
        files: [
          { path: 'c.ts', kind: JobEvent_Kind.FILE_DONE, chunks: 1n, symbols: 1n },
          { path: 'gone.ts', kind: JobEvent_Kind.FILE_DONE, detail: 'deleted' },
        ],
      });
      const seen = await watched;
      const last = seen.at(-1)!;
      assert.equal(seen[0]!.state, 'queued');
      assert.ok(seen.some((s) => s.state === 'running'));
      assert.equal(last.state, 'succeeded');
      assert.equal(last.phase, 'done');
      assert.equal(last.filesTotal, 4);
      assert.equal(last.filesDone, 4);
      assert.equal(last.failures, 1);
      assert.equal(last.filesDeleted, 1);
      assert.equal(last.filesChanged, 2, 'a.ts and c.ts written; gone.ts was the deletion');
      assert.equal(last.chunks, 4);
      assert.equal(last.symbols, 3);
      assert.equal(last.error, null);
      assert.deepEqual((await jobs.get(id))?.state, 'succeeded');
      // A watch after the end replays the final status and ends.
      const again = await collect(jobs.watch(id));
      assert.deepEqual(
        again.map((s) => s.state),
        ['succeeded'],
      );
      // Another query replica (its own jobs object) answers for the same job from the stream.
      const replica = createClusterIndexJobs({ js });
      try {
        const there = await replica.get(id);
        assert.equal(there?.state, 'succeeded');
        assert.equal(there?.root, '/checkouts/repo');
        assert.equal(there?.chunks, 4);
        assert.equal(there?.failures, 1);
        const replayed = await collect(replica.watch(id));
        assert.equal(replayed.at(-1)?.state, 'succeeded');
      } finally {
        await replica.close();
      }
    } finally {
      await jobs.close();
    }
  });

  test('a JOB_FAILED event fails the job with its reason', async () => {
    const jobs = createClusterIndexJobs({ js });
    try {
      const job = await jobs.start({ root: 'nowhere' });
      await nextRequest();
      const watched = collect(jobs.watch(job.jobId));
      await publishJobEvent(js, {
        jobId: job.jobId,
        stage: 'scanner',
        kind: JobEvent_Kind.JOB_FAILED,
        detail: 'index job root /nowhere does not exist on the scanner',
      });
      const last = (await watched).at(-1)!;
      assert.equal(last.state, 'failed');
      assert.match(last.error ?? '', /does not exist/);
    } finally {
      await jobs.close();
    }
  });

  test('every replica answers the newest job of any replica as the latest', async () => {
    const a = createClusterIndexJobs({ js });
    const b = createClusterIndexJobs({ js });
    try {
      const fromA = await a.start({ root: '/checkouts/a' });
      await nextRequest();
      assert.equal((await b.latest())?.jobId, fromA.jobId);
      const fromB = await b.start({ root: '/checkouts/b', repository: 'acme/b' });
      const req = await nextRequest();
      assert.deepEqual(
        req.files.map((f) => [f.path, f.repository]),
        [['/checkouts/b', 'acme/b']],
      );
      // A started nothing newer: its latest is B's job, not its own.
      const latest = await a.latest();
      assert.equal(latest?.jobId, fromB.jobId);
      assert.equal(latest?.root, '/checkouts/b');
      assert.equal((await b.latest())?.jobId, fromB.jobId);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('an empty root asks for the scanner’s root, and close ends the watchers', async () => {
    const jobs = createClusterIndexJobs({ js });
    const job = await jobs.start({});
    assert.deepEqual(
      (await nextRequest()).files.map((f) => f.path),
      ['.'],
    );
    const watched = collect(jobs.watch(job.jobId));
    await new Promise((r) => setTimeout(r, 50));
    await jobs.close();
    const seen = await watched;
    assert.equal(seen.at(-1)!.state, 'queued');
    await assert.rejects(jobs.start({ root: '/x' }), /closed/);
  });
});
