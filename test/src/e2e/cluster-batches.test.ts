import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  batchPaths,
  decodeWork,
  ensureStreams,
  publish,
  publishJobEvent,
  readDeadLetters,
} from '@codesift/bus';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { fetchManifest, submitIndexJob, watchJob } from '@codesift/cluster-services';
import { JobEvent_Kind } from '@codesift/proto';
import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import Database from 'better-sqlite3';
import { startWorker, type Worker } from '../support/processes.js';
import { writeTree } from '../support/tree.js';

const STAGES = ['chunker', 'contextualizer', 'embedder', 'writer', 'symbols'] as const;

function indexed(indexPath: string) {
  const db = new Database(indexPath, { readonly: true });
  try {
    return {
      files: (db.prepare('SELECT path FROM files ORDER BY path').all() as { path: string }[]).map(
        (r) => r.path,
      ),
      chunks: (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

function tsFile(i: number, padding = 0): string {
  return [
    `/** Module ${i}. */`,
    `export function helper${i}(n: number): number {`,
    `  return n * ${i} + 1;`,
    '}',
    '',
    `export class Thing${i} {`,
    `  name(): string {`,
    `    return 'thing ${i}${'x'.repeat(padding)}';`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/**
 * Batches through every stage process: the scanner packs files by count and
 * bytes, progress counts each file once, and one bad file in a batch fails
 * alone (FILE_FAILED and a dead letter with the reason) while the rest of
 * its batch is written.
 */
describe('cluster pipeline carries batches of files (end to end)', () => {
  let work: string;
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let indexPath: string;
  const workers: Worker[] = [];
  const logs = () => workers.map((w) => `--- ${w.stage}\n${w.log}`).join('\n');

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-cluster-batches-'));
    server = await startNatsServer();
    nc = await connect({ servers: server.url, name: 'codesift-cluster-batches-test' });
    js = jetstream(nc);
    await ensureStreams(await jetstreamManager(nc));
    indexPath = path.join(work, 'cluster', 'index.db');
    const env = {
      NATS_URL: server.url,
      CODESIFT_INDEX: indexPath,
      CODESIFT_EMBEDDER: 'none',
      CODESIFT_LOG_LEVEL: 'warn',
    };
    for (const stage of STAGES) workers.push(startWorker(stage, env));
  });
  after(async () => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exit));
    await nc?.close().catch(() => undefined);
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test('the scanner packs files by count and bytes; progress counts every file once', async () => {
    const root = path.join(work, 'repo');
    const tree: Record<string, string> = {};
    for (let i = 0; i < 10; i++) tree[`src/m${i}.ts`] = tsFile(i);
    // Larger than the byte limit below: it travels in a batch of its own.
    tree['src/big.ts'] = tsFile(99, 6000);
    // Larger than a message may be on this (pretend) server: skipped, not sent.
    tree['src/huge.ts'] = tsFile(100, 40_000);
    writeTree(root, tree);

    const job = await submitIndexJob(
      js,
      root,
      () => fetchManifest(nc, { root, waitForServiceMs: 30_000 }),
      {
        batch: { maxFiles: 3, maxBytes: 4096 },
        maxPayload: 32 * 1024,
      },
    );
    assert.equal(job.filesSent, 11);
    assert.equal(job.skipped['too-large'], 1);
    // 10 small files in threes (4 messages) and big.ts alone; its neighbours
    // in path order may close a batch early, so allow one message more.
    assert.ok(
      job.messagesSent >= 5 && job.messagesSent <= 6,
      `${job.messagesSent} messages for 11 files`,
    );
    const progress = await watchJob(js, job.jobId, { timeoutMs: 20_000 }).catch((err) => {
      throw new Error(`${err.message}\n${logs()}`);
    });
    assert.equal(progress.filesDone, 11);
    assert.equal(progress.filesFailed, 0);
    assert.equal(progress.seen.size, 11);
    const after = indexed(indexPath);
    assert.equal(after.files.length, 11);
    assert.ok(!after.files.includes('src/huge.ts'));
    assert.equal(progress.chunks, after.chunks, 'every written chunk is counted once');
  });

  test('a bad file fails alone: FILE_FAILED and a dead letter with the reason, the rest is written', async () => {
    const jobId = 'bad-file-job';
    const good = (p: string) => ({
      path: p,
      hash: `h-${p}`,
      language: 'typescript',
      size: 10n,
      chunks: [
        {
          id: `${p}#1`,
          path: p,
          language: 'typescript',
          range: { startLine: 1, endLine: 1 },
          kind: 'block',
          content: `export const x = '${p}';`,
        },
      ],
    });
    // Embedded by another model than the keyword-only index was built
    // with (a misconfigured replica): no retry can ever store it.
    const bad = {
      ...good('batch/bad.ts'),
      vectors: [{ values: [1, 0, 0, 0] }],
      embedder: 'test-4d',
    };
    await publishJobEvent(js, { jobId, kind: JobEvent_Kind.JOB_PLANNED, filesTotal: 3n });
    await publish(js, 'embedded', {
      jobId,
      files: [good('batch/a.ts'), bad, good('batch/b.ts')],
    });
    const progress = await watchJob(js, jobId, { timeoutMs: 20_000 }).catch((err) => {
      throw new Error(`${err.message}\n${logs()}`);
    });
    assert.equal(progress.filesDone, 2, logs());
    assert.equal(progress.filesFailed, 1);
    const reason = progress.failures.get('batch/bad.ts') ?? '';
    assert.match(reason, /^write: index .* was built with no embedder, not test-4d \(4-d\)/);

    const files = indexed(indexPath).files;
    assert.ok(files.includes('batch/a.ts') && files.includes('batch/b.ts'), `indexed: ${files}`);
    assert.ok(!files.includes('batch/bad.ts'));

    const letters = await readDeadLetters(js, { stage: 'writer', expiresMs: 1000 });
    assert.equal(letters.length, 1);
    const letter = letters[0]!.letter;
    assert.equal(letter.reason, reason);
    assert.equal(letter.subject, 'codesift.work.embedded');
    // The payload is a batch of the bad file alone: it can be replayed as is.
    const payload = decodeWork('embedded', letter.payload);
    assert.equal(payload.jobId, jobId);
    assert.deepEqual(batchPaths(payload), ['batch/bad.ts']);
  });
});
