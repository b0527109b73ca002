import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import type { Embedder } from '@codesift/models';
import { createLocalIndexJobs, type IndexJobStatus } from './jobs.js';
import type { IndexOptions } from './local-runner.js';
import { indexRepository } from './local-runner.js';
import type { IndexSummary } from './progress.js';

function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

const FILES: Record<string, string> = {
  'src/graph.ts': `/** A directed graph. */
export class Graph {
  private edges = new Map<string, string[]>();

  /** Inserts an edge from a to b. */
  addEdge(a: string, b: string): void {
    const list = this.edges.get(a) ?? [];
    list.push(b);
    this.edges.set(a, list);
  }
}
`,
  'py/util.py': `def slugify(text):
    """Lower-cases text and joins words with dashes."""
    return "-".join(text.lower().split())
`,
  'README.md': '# Demo\n\nA small tree for job tests.\n',
  '.env': 'SECRET=1\n',
};

async function collect(iter: AsyncIterable<IndexJobStatus>): Promise<IndexJobStatus[]> {
  const out: IndexJobStatus[] = [];
  for await (const s of iter) out.push(s);
  return out;
}

/** An indexer that waits until released, so a test controls when a job ends. */
function gatedIndexer() {
  const gates: { release: () => void; fail: (e: Error) => void; options: IndexOptions }[] = [];
  const indexer = (options: IndexOptions) =>
    new Promise<IndexSummary>((resolve, reject) => {
      options.onProgress?.({
        phase: 'index',
        filesScanned: 3,
        filesToProcess: 3,
        filesProcessed: 1,
        chunks: 2,
        chunksPerSecond: 0,
        etaSeconds: null,
        elapsedSeconds: 0.1,
      });
      options.signal?.addEventListener('abort', () => reject(new Error('indexing was cancelled')));
      gates.push({
        options,
        fail: reject,
        release: () => resolve(fakeSummary(options.root)),
      });
    });
  return { indexer, gates };
}

function fakeSummary(root: string): IndexSummary {
  return {
    root,
    indexPath: path.join(root, '.codesift', 'index.db'),
    embedder: null,
    filesScanned: 3,
    filesIndexed: 3,
    filesNew: 3,
    filesChanged: 0,
    filesUnchanged: 0,
    filesDeleted: 0,
    filesFailed: 0,
    skipped: { secret: 1 },
    secretsRedacted: {},
    chunks: 4,
    symbols: 2,
    vectors: 0,
    totals: { files: 3, chunks: 4, symbols: 2, vectors: 0 },
    seconds: 0.2,
    chunksPerSecond: 20,
    failures: [],
  };
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('createLocalIndexJobs', () => {
  let dir: string;
  let root: string;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-jobs-'));
    root = path.join(dir, 'repo');
    writeTree(root, FILES);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('indexes a real tree and streams progress to the end', async () => {
    const indexPath = path.join(dir, 'real', 'index.db');
    const jobs = createLocalIndexJobs({ root, indexPath });
    const first = await jobs.start({ vectors: false });
    assert.equal(first.root, root);
    assert.equal(first.indexPath, indexPath);
    assert.ok(first.state === 'queued' || first.state === 'running');
    const updates = await collect(jobs.watch(first.jobId));
    const last = updates.at(-1)!;
    assert.equal(last.state, 'succeeded', last.error ?? '');
    assert.equal(last.phase, 'done');
    assert.equal(last.filesChanged, 3);
    assert.equal(last.filesDone, last.filesTotal);
    assert.ok(last.chunks >= 3, `chunks ${last.chunks}`);
    assert.ok(last.symbols >= 2, `symbols ${last.symbols}`);
    assert.equal(last.skipped.secret, 1);
    assert.equal(last.error, null);
    assert.ok(last.summary && last.summary.totals.files === 3);
    assert.ok(last.finishedAt! >= last.startedAt!);
    // Updates run through the states in order and only the last is terminal.
    const order = ['queued', 'running', 'succeeded'];
    for (let i = 1; i < updates.length; i++) {
      assert.ok(order.indexOf(updates[i]!.state) >= order.indexOf(updates[i - 1]!.state));
    }
    assert.ok(updates.slice(0, -1).every((u) => u.state !== 'succeeded'));
    // A subscriber arriving after the end gets the final state at once, then the stream ends.
    const late = await collect(jobs.watch(first.jobId));
    assert.equal(late.length, 1);
    assert.equal(late[0]!.state, 'succeeded');
    assert.deepEqual(jobs.get(first.jobId)?.state, 'succeeded');
    assert.equal(jobs.latest()?.jobId, first.jobId);

    // A second run is incremental: nothing changed, nothing written.
    const again = await jobs.start({ vectors: false });
    const end = (await collect(jobs.watch(again.jobId))).at(-1)!;
    assert.equal(end.state, 'succeeded');
    assert.equal(end.filesChanged, 0);
    assert.equal(jobs.list().length, 2);
    await jobs.close();
  });

  test('a failing job reports FAILED with the error message', async () => {
    const finished: IndexJobStatus[] = [];
    const jobs = createLocalIndexJobs({
      root,
      indexer: async () => {
        throw new Error('disk full');
      },
      onFinished: (s) => finished.push(s),
    });
    const job = await jobs.start({ vectors: false });
    const end = (await collect(jobs.watch(job.jobId))).at(-1)!;
    assert.equal(end.state, 'failed');
    assert.equal(end.error, 'disk full');
    assert.deepEqual(
      finished.map((s) => [s.jobId, s.state]),
      [[job.jobId, 'failed']],
    );
    await jobs.close();
  });

  test('runs one job at a time: a second start is queued, an identical queued one is reused', async () => {
    const { indexer, gates } = gatedIndexer();
    const jobs = createLocalIndexJobs({ root, indexer });
    const a = await jobs.start({ vectors: false });
    await until(() => gates.length === 1);
    assert.equal(jobs.get(a.jobId)?.state, 'running');
    assert.equal(jobs.get(a.jobId)?.filesDone, 1);
    const b = await jobs.start({ vectors: false });
    assert.equal(b.state, 'queued');
    const twin = await jobs.start({ vectors: false });
    assert.equal(twin.jobId, b.jobId, 'an identical waiting job is shared');
    const c = await jobs.start({ vectors: false, rebuild: true });
    assert.notEqual(c.jobId, b.jobId);
    // Watching the queued job: its current state first, then updates as it runs.
    const watched = collect(jobs.watch(b.jobId));
    gates[0]!.release();
    await until(() => gates.length === 2);
    assert.equal(jobs.get(a.jobId)?.state, 'succeeded');
    assert.equal(jobs.get(b.jobId)?.state, 'running');
    assert.equal(jobs.get(c.jobId)?.state, 'queued');
    gates[1]!.release();
    const bUpdates = await watched;
    assert.equal(bUpdates[0]!.state, 'queued');
    assert.equal(bUpdates.at(-1)!.state, 'succeeded');
    assert.deepEqual(bUpdates.at(-1)!.skipped, { secret: 1 });
    await until(() => gates.length === 3);
    assert.equal(gates[2]!.options.rebuild, true);
    gates[2]!.release();
    await until(() => jobs.get(c.jobId)?.state === 'succeeded');
    await jobs.close();
  });

  test('close cancels the running job and fails queued ones', async () => {
    const { indexer, gates } = gatedIndexer();
    const jobs = createLocalIndexJobs({ root, indexer });
    const a = await jobs.start({ vectors: false });
    const b = await jobs.start({ vectors: false, rebuild: true });
    await until(() => gates.length === 1);
    await jobs.close();
    assert.equal(jobs.get(a.jobId)?.state, 'failed');
    assert.match(jobs.get(a.jobId)?.error ?? '', /cancelled/);
    assert.equal(jobs.get(b.jobId)?.state, 'failed');
    await assert.rejects(jobs.start({ vectors: false }), /shutting down/);
  });

  test('a watcher can stop early with its signal', async () => {
    const { indexer, gates } = gatedIndexer();
    const jobs = createLocalIndexJobs({ root, indexer });
    const a = await jobs.start({ vectors: false });
    await until(() => gates.length === 1);
    const controller = new AbortController();
    const seen: IndexJobStatus[] = [];
    const done = (async () => {
      for await (const s of jobs.watch(a.jobId, { signal: controller.signal })) seen.push(s);
    })();
    await until(() => seen.length === 1);
    controller.abort();
    await done;
    assert.equal(seen.length, 1);
    gates[0]!.release();
    await jobs.close();
  });

  test('rejects bad requests before queueing', async () => {
    const jobs = createLocalIndexJobs({ root, maxQueued: 1, indexer: gatedIndexer().indexer });
    await assert.rejects(
      jobs.start({ root: path.join(dir, 'elsewhere'), vectors: false }),
      (e: unknown) => e instanceof CodesiftError && e.code === 'PATH_OUTSIDE_ROOT',
    );
    await assert.rejects(
      jobs.start({ vectors: true }),
      (e: unknown) => e instanceof CodesiftError && /no embedding model/.test(e.message),
    );
    await assert.rejects(
      jobs.start({ vectors: false, repository: 'acme/api' }),
      (e: unknown) =>
        e instanceof CodesiftError &&
        e.code === 'INVALID_ARGUMENT' &&
        /a local index holds one tree/.test(e.message),
    );
    const unrooted = createLocalIndexJobs({ indexer: gatedIndexer().indexer });
    await assert.rejects(unrooted.start({ vectors: false }), /no root/);
    await assert.rejects(
      unrooted.start({ root: path.join(dir, 'missing'), vectors: false }),
      (e: unknown) => e instanceof CodesiftError && e.code === 'ENOENT_ROOT',
    );
    // One running, one waiting: the queue (max 1) is full.
    await jobs.start({ vectors: false });
    await jobs.start({ vectors: false });
    await assert.rejects(
      jobs.start({ vectors: false, rebuild: true }),
      (e: unknown) =>
        e instanceof CodesiftError && e.code === 'BUSY' && /already waiting/.test(e.message),
    );
    await assert.rejects(collect(jobs.watch('nope')), /no index job/);
    await jobs.close();
    await unrooted.close();
  });

  test('with vectors, makes an embedder per job and closes it', async () => {
    let closed = 0;
    const embedder: Embedder = {
      name: 'test:const-4',
      dimensions: 4,
      maxBatch: 8,
      embed: async (texts) => texts.map(() => new Float32Array([1, 0, 0, 0])),
      close: async () => {
        closed++;
      },
    };
    const jobs = createLocalIndexJobs({
      root,
      indexPath: path.join(dir, 'vec', 'index.db'),
      embedderFactory: async () => embedder,
      indexer: indexRepository,
    });
    const job = await jobs.start({});
    const end = (await collect(jobs.watch(job.jobId))).at(-1)!;
    assert.equal(end.state, 'succeeded', end.error ?? '');
    assert.equal(end.summary?.vectors, end.chunks);
    assert.equal(closed, 1);
    await jobs.close();
  });

  test('with keepEmbedderMs, the next job reuses the embedder; close() closes it', async () => {
    let made = 0;
    let closed = 0;
    const jobs = createLocalIndexJobs({
      root,
      indexPath: path.join(dir, 'kept', 'index.db'),
      embedderFactory: async () => {
        made++;
        return {
          name: 'test:const-4',
          dimensions: 4,
          maxBatch: 8,
          embed: async (texts) => texts.map(() => new Float32Array([1, 0, 0, 0])),
          close: async () => {
            closed++;
          },
        };
      },
      keepEmbedderMs: 60_000,
      indexer: indexRepository,
    });
    for (let i = 0; i < 3; i++) {
      const job = await jobs.start({ rebuild: i === 0 });
      const end = (await collect(jobs.watch(job.jobId))).at(-1)!;
      assert.equal(end.state, 'succeeded', end.error ?? '');
    }
    assert.equal(made, 1, 'one model for three jobs');
    assert.equal(closed, 0);
    await jobs.close();
    assert.equal(closed, 1);
  });
});
