// The scanner service in-process with the real pipeline stages on a real
// nats-server: an index-job request on the `jobs` queue becomes a scan
// whose files flow through chunker, contextualizer, embedder and writer,
// planned against the writer's manifest over NATS (no shared index file).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureStreams } from '@codesift/bus';
import { startNatsServer } from '@codesift/bus/testing';
import {
  type ClusterIndexJobs,
  type ClusterJobStatus,
  createClusterIndexJobs,
  NatsSymbolIndex,
} from '@codesift/cluster-services';
import { createLogger, type RunningStage, runStage } from '@codesift/service-kit';
import { openSqliteIndex } from '@codesift/stores';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { STAGES } from './index.js';
import { resolveJobRoot } from './scanner.js';

const quiet = createLogger('test', { write: () => undefined });

function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(root, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

async function finished(jobs: ClusterIndexJobs, jobId: string): Promise<ClusterJobStatus> {
  let last: ClusterJobStatus | undefined;
  const timeout = AbortSignal.timeout(30_000);
  for await (const s of jobs.watch(jobId, { signal: timeout })) last = s;
  assert.ok(last, 'the watch yielded');
  return last;
}

describe('resolveJobRoot', () => {
  let dir: string;
  before(() => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-root-')));
    mkdirSync(path.join(dir, 'repo'));
    writeFileSync(path.join(dir, 'file.txt'), 'x');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('resolves inside the scan roots and refuses what no retry fixes', () => {
    const roots = [dir];
    assert.equal(resolveJobRoot('repo', roots), path.join(dir, 'repo'));
    assert.equal(resolveJobRoot('.', roots), dir);
    assert.equal(resolveJobRoot(path.join(dir, 'repo'), roots), path.join(dir, 'repo'));
    assert.throws(() => resolveJobRoot('../x', roots), { code: 'PERMISSION_DENIED' });
    assert.throws(() => resolveJobRoot('/etc', roots), { code: 'PERMISSION_DENIED' });
    assert.throws(() => resolveJobRoot('missing', roots), { code: 'ENOENT_ROOT' });
    assert.throws(() => resolveJobRoot('file.txt', roots), { code: 'NOT_A_DIRECTORY' });
  });
});

/** Every stage in this process on a fresh nats-server and index, and the cluster's job runner. */
async function startPipeline() {
  const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-scanner-')));
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  await ensureStreams(await jetstreamManager(nc));
  const indexPath = path.join(work, 'data', 'index.db');
  const env = {
    NATS_URL: server.url,
    CODESIFT_INDEX: indexPath,
    CODESIFT_EMBEDDER: 'none',
    CODESIFT_SCAN_ROOTS: path.join(work, 'checkouts'),
    CODESIFT_PULL_EXPIRES_MS: '1000',
  };
  const running: RunningStage[] = [];
  for (const stage of Object.values(STAGES)) {
    // The scanner gets no CODESIFT_INDEX: it must not need the writer's disk.
    const stageEnv = stage.name === 'scanner' ? { ...env, CODESIFT_INDEX: '' } : { ...env };
    running.push(await runStage(stage, { env: stageEnv, handleSignals: false, log: quiet }));
  }
  const jobs = createClusterIndexJobs({ js: jetstream(nc) });
  return {
    work,
    nc,
    jobs,
    indexPath,
    async stop() {
      await jobs.close();
      await Promise.all(running.map((r) => r.stop()));
      await nc.close();
      await server.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

describe('scanner service with the pipeline stages', () => {
  let work: string;
  let nc: NatsConnection;
  let jobs: ClusterIndexJobs;
  let indexPath: string;
  let pipeline: Awaited<ReturnType<typeof startPipeline>> | undefined;

  before(async () => {
    pipeline = await startPipeline();
    ({ work, nc, jobs, indexPath } = pipeline);
  });
  after(async () => {
    await pipeline?.stop();
  });

  test('a job request is scanned, indexed, and incremental the second time', async () => {
    const repo = path.join(work, 'checkouts', 'repo');
    writeTree(repo, {
      'src/graph.ts':
        'export class Graph {\n  addEdge(a: string, b: string): void {\n    console.log(a, b);\n  }\n}\n',
      'py/config.py': 'def parse_config(path):\n    return open(path).read()\n',
      'README.md': '# Tools\n\nSome words.\n',
    });
    const first = await jobs.start({ root: 'repo' });
    const done = await finished(jobs, first.jobId);
    assert.equal(done.state, 'succeeded', done.error ?? '');
    assert.equal(done.filesTotal, 3);
    assert.equal(done.filesDone, 3);
    assert.equal(done.failures, 0);
    assert.ok(done.chunks >= 3, `chunks: ${done.chunks}`);
    assert.equal(done.root, repo);

    const index = openSqliteIndex(indexPath, { readonly: true });
    try {
      assert.equal(index.stats().files, 3);
      assert.equal(index.meta().root, repo, 'the writer recorded the root the scanner sent');
    } finally {
      index.close();
    }
    // The symbols stage answers from the writer's index (no CODESIFT_SYMBOLS_INDEX).
    const symbols = await new NatsSymbolIndex(nc).lookup('addEdge');
    assert.deepEqual(
      symbols.map((s) => [s.qualifiedName, s.path]),
      [['Graph.addEdge', 'src/graph.ts']],
    );

    // Only what changed is sent again: the manifest came from the writer.
    writeFileSync(path.join(repo, 'py/config.py'), 'def parse_config(text):\n    return text\n');
    rmSync(path.join(repo, 'README.md'));
    const second = await finished(jobs, (await jobs.start({ root: 'repo' })).jobId);
    assert.equal(second.state, 'succeeded', second.error ?? '');
    assert.equal(second.filesTotal, 2);
    assert.equal(second.filesDeleted, 1);
    assert.equal(second.filesChanged, 1);
  });

  test('a repository job cannot join an index of one tree, and a bad name is refused at start', async () => {
    // The index holds the unnamed tree the test above indexed.
    const repo = path.join(work, 'checkouts', 'other');
    writeTree(repo, { 'a.ts': 'export const a = 1;\n' });
    const refused = await finished(
      jobs,
      (await jobs.start({ root: 'other', repository: 'other' })).jobId,
    );
    assert.equal(refused.state, 'failed');
    assert.match(refused.error ?? '', /holds one unnamed tree .*repository 'other' cannot join it/);
    await assert.rejects(jobs.start({ root: 'other', repository: 'a b' }), {
      code: 'INVALID_ARGUMENT',
      message: /invalid repository name 'a b'/,
    });
  });

  test('a root that cannot be scanned fails the job at once with the reason', async () => {
    const missing = await finished(jobs, (await jobs.start({ root: 'no-such-repo' })).jobId);
    assert.equal(missing.state, 'failed');
    assert.match(missing.error ?? '', /directory not found: .*no-such-repo/);
    // Anything on NATS can queue a job: the scanner checks the root itself.
    const outside = await finished(jobs, (await jobs.start({ root: '/etc' })).jobId);
    assert.equal(outside.state, 'failed');
    assert.match(outside.error ?? '', /outside the scan roots/);
    const secret = path.join(work, 'private');
    writeTree(secret, { 'key.ts': 'export const key = 1;\n' });
    symlinkSync(secret, path.join(work, 'checkouts', 'escape'));
    const escaped = await finished(jobs, (await jobs.start({ root: 'escape' })).jobId);
    assert.equal(escaped.state, 'failed');
    assert.match(escaped.error ?? '', /outside the scan roots/);
    const dotdot = await finished(jobs, (await jobs.start({ root: '../private' })).jobId);
    assert.equal(dotdot.state, 'failed');
    assert.match(dotdot.error ?? '', /outside the scan roots/);
  });
});

describe('scanner service, an index of many repositories', () => {
  let pipeline: Awaited<ReturnType<typeof startPipeline>> | undefined;
  before(async () => {
    pipeline = await startPipeline();
  });
  after(async () => {
    await pipeline?.stop();
  });

  test('jobs that name repositories store them apart, each planned within its own', async () => {
    const { work, jobs, indexPath } = pipeline!;
    writeTree(path.join(work, 'checkouts', 'api'), { 'src/a.ts': 'export const api = 1;\n' });
    writeTree(path.join(work, 'checkouts', 'web'), {
      'src/a.ts': 'export const web = 1;\n',
      'src/b.ts': 'export const webB = 2;\n',
    });
    const api = await finished(
      jobs,
      (await jobs.start({ root: 'api', repository: 'acme/api' })).jobId,
    );
    assert.equal(api.state, 'succeeded', api.error ?? '');
    const web = await finished(jobs, (await jobs.start({ root: 'web', repository: 'web' })).jobId);
    assert.equal(web.state, 'succeeded', web.error ?? '');
    assert.equal(web.filesDeleted, 0, 'the other repository is not this job to delete');
    // Unchanged: nothing to send, and still nothing of acme/api deleted.
    const again = await finished(
      jobs,
      (await jobs.start({ root: 'web', repository: 'web' })).jobId,
    );
    assert.equal(again.filesTotal, 0);
    const index = openSqliteIndex(indexPath, { readonly: true });
    try {
      const paths = [...(await index.manifest.all()).keys()].sort();
      assert.deepEqual(paths, ['acme/api/src/a.ts', 'web/src/a.ts', 'web/src/b.ts']);
      assert.deepEqual(index.meta().repositories, {
        'acme/api': path.join(work, 'checkouts', 'api'),
        web: path.join(work, 'checkouts', 'web'),
      });
    } finally {
      index.close();
    }
    // An unnamed tree may not join: it would plan both repositories as deleted.
    const unnamed = await finished(jobs, (await jobs.start({ root: 'web' })).jobId);
    assert.equal(unnamed.state, 'failed');
    assert.match(unnamed.error ?? '', /holds repositories \(acme\/api, web\)/);
  });
});
