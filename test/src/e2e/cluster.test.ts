import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureStreams } from '@codesift/bus';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { fetchManifest, submitIndexJob, watchJob } from '@codesift/cluster-services';
import { indexRepository } from '@codesift/pipeline';
import { openLocalEngine } from '@codesift/search';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { indexSnapshot as snapshot } from '../support/index-snapshot.js';
import { startWorker, type Worker, workersStarted } from '../support/processes.js';
import { writeTree } from '../support/tree.js';

const STAGES = ['chunker', 'contextualizer', 'embedder', 'writer', 'symbols'] as const;

const QUERIES = [
  'add an edge to the graph',
  'Graph.addEdge',
  'parse configuration file',
  'how do I install it',
  'shortest path',
];

async function topResults(indexPath: string): Promise<string[][]> {
  const engine = await openLocalEngine({ indexPath, embedder: null, config: null });
  try {
    const out: string[][] = [];
    for (const query of QUERIES) {
      const r = await engine.search({ query, limit: 5 });
      out.push(r.results.map((h) => `${h.path}:${h.startLine}-${h.endLine}:${h.chunkId}`));
    }
    return out;
  } finally {
    await engine.close();
  }
}

/**
 * The cluster runtime end to end: a real nats-server, every stage as its own
 * `codesift-worker` process on the SQLite store, a job submitted through the
 * bus; the result must equal local mode's index of the same tree.
 */
describe('cluster pipeline over NATS (end to end)', () => {
  let work: string;
  let server: NatsServerHandle;
  let nc: NatsConnection;
  const workers: Worker[] = [];

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-cluster-'));
    server = await startNatsServer();
    nc = await connect({ servers: server.url, name: 'codesift-cluster-test' });
  });
  after(async () => {
    // Normally the test has stopped them already; this is for a failed run.
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exit));
    await nc?.close().catch(() => undefined);
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test('indexes a tree through the bus like local mode, incrementally, and stops cleanly', async () => {
    const root = path.join(work, 'repo');
    writeTree(root, {
      'src/graph.ts': [
        '/** A directed graph kept as adjacency lists. */',
        'export class Graph {',
        '  private readonly edges = new Map<string, string[]>();',
        '',
        '  /** Adds an edge from `a` to `b`, creating both nodes. */',
        '  addEdge(a: string, b: string): void {',
        '    const list = this.edges.get(a) ?? [];',
        '    list.push(b);',
        '    this.edges.set(a, list);',
        '  }',
        '',
        '  neighbours(a: string): string[] {',
        '    return this.edges.get(a) ?? [];',
        '  }',
        '}',
        '',
        'export function shortestPath(g: Graph, from: string, to: string): string[] {',
        '  const seen = new Set([from]);',
        '  const queue: string[][] = [[from]];',
        '  while (queue.length > 0) {',
        '    const p = queue.shift()!;',
        '    const last = p[p.length - 1]!;',
        '    if (last === to) return p;',
        '    for (const n of g.neighbours(last)) {',
        '      if (!seen.has(n)) {',
        '        seen.add(n);',
        '        queue.push([...p, n]);',
        '      }',
        '    }',
        '  }',
        '  return [];',
        '}',
        '',
      ].join('\n'),
      'py/config.py':
        'import json\n\n\ndef parse_config(path):\n    """Parse the configuration file at path."""\n    with open(path) as f:\n        return json.load(f)\n',
      'go/store.go':
        'package store\n\n// Store keeps values by key.\ntype Store struct {\n\tm map[string]int\n}\n\n// Put stores v under k.\nfunc (s *Store) Put(k string, v int) {\n\ts.m[k] = v\n}\n',
      'README.md': '# Graph tools\n\n## Install\n\nRun npm install.\n\n## Usage\n\nCall addEdge.\n',
      'notes.txt': 'plain text notes\nabout the graph\n',
      'empty.ts': '',
    });
    const localDb = path.join(work, 'local', 'index.db');
    const clusterDb = path.join(work, 'cluster', 'index.db');
    const env = { NATS_URL: server.url, CODESIFT_INDEX: clusterDb, CODESIFT_EMBEDDER: 'none' };

    const js = jetstream(nc);
    await ensureStreams(await jetstreamManager(nc));
    for (const stage of STAGES) workers.push(startWorker(stage, env));
    await workersStarted(workers);
    const logs = () => workers.map((w) => `--- ${w.stage}\n${w.log}`).join('\n');

    const runJob = async () => {
      const job = await submitIndexJob(js, root, () =>
        fetchManifest(nc, { root, waitForServiceMs: 30_000 }),
      );
      const progress = await watchJob(js, job.jobId, { timeoutMs: 20_000 }).catch((err) => {
        throw new Error(`${err.message}\n${logs()}`);
      });
      return { job, progress };
    };

    const started = performance.now();
    const first = await runJob();
    assert.equal(first.job.filesSent, 6);
    assert.equal(first.progress.filesDone, 6);
    assert.equal(first.progress.filesFailed, 0);
    await indexRepository({ root, indexPath: localDb, vectors: false });
    const a = snapshot(clusterDb);
    const b = snapshot(localDb);
    assert.ok(a.chunks.length >= 5, `expected chunks, got ${a.chunks.length}`);
    assert.equal(first.progress.chunks, a.chunks.length, 'FILE_DONE events count every chunk');
    assert.deepEqual(a, b, 'cluster and local mode build the same index');
    const top = await topResults(clusterDb);
    assert.ok(
      top.every((hits) => hits.length > 0),
      'every query finds something',
    );
    assert.deepEqual(top, await topResults(localDb));

    // Incremental: one file changed, one deleted, one added.
    writeFileSync(
      path.join(root, 'py/config.py'),
      'def parse_config(text):\n    """Parse configuration text."""\n    return dict(line.split("=") for line in text.splitlines())\n',
    );
    unlinkSync(path.join(root, 'notes.txt'));
    writeFileSync(path.join(root, 'src/util.ts'), 'export const twice = (n: number) => n * 2;\n');
    const second = await runJob();
    assert.equal(second.job.filesSent, 2);
    assert.equal(second.job.filesDeleted, 1);
    assert.equal(second.progress.filesDone, 3);
    await indexRepository({ root, indexPath: localDb, vectors: false });
    assert.deepEqual(snapshot(clusterDb), snapshot(localDb));
    assert.deepEqual(await topResults(clusterDb), await topResults(localDb));
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 30, `two jobs took ${seconds.toFixed(1)} s`);

    // Graceful shutdown: SIGTERM drains and exits 0, with a final log line.
    for (const w of workers) w.proc.kill('SIGTERM');
    const codes = await Promise.all(workers.map((w) => w.exit));
    assert.deepEqual(codes, [0, 0, 0, 0, 0], logs());
    for (const w of workers) {
      const lines = w.log
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.ok(
        lines.some((l) => l.msg === 'stopped' && l.service === w.stage),
        `${w.stage} logged its stop:\n${w.log}`,
      );
    }
  });
});
