import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureStreams } from '@codesift/bus';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { fetchManifest, submitIndexJob, watchJob } from '@codesift/cluster-services';
import {
  type FakeLlmServer,
  type FakeRequest,
  promptText,
  startFakeLlmServer,
} from '@codesift/llm/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { runCli } from '../support/cli.js';
import { indexSnapshot } from '../support/index-snapshot.js';
import { startWorker, type Worker, workersStarted } from '../support/processes.js';
import { writeTree } from '../support/tree.js';

const MODEL = 'qwen3:0.6b';
// Generous: on a loaded machine a cold first call can take a second or more.
const TIMEOUT_MS = 5000;

/** A sentence of prose about the piece the prompt asks about, different for every chunk. */
function situate(request: FakeRequest): object {
  const prompt = promptText(request);
  const file = /^File: (\S+)/m.exec(prompt)?.[1] ?? 'a file';
  const piece = /^Piece to describe \((.+?), lines (\d+)-(\d+)\)/m.exec(prompt);
  const what = piece ? `the ${piece[1]} on lines ${piece[2]} to ${piece[3]}` : 'a piece';
  return { context: `Describes ${what} of ${file} in the fixture repository.` };
}

/** A Python function long enough to be a chunk of its own. */
function pyFunction(verb: string): string {
  return [
    `def ${verb}_config(a, b=None):`,
    `    """${verb} the configuration."""`,
    '    result = {}',
    '    for key in sorted(a or {}):',
    '        value = a[key]',
    '        if isinstance(value, str):',
    '            value = value.strip()',
    '        result[key] = value',
    '    if b:',
    '        for key, value in b.items():',
    '            result[key] = value',
    '    return result',
    '',
  ].join('\n');
}

/**
 * The cluster's contextualizer in LLM mode, end to end: a real nats-server,
 * every stage as its own `codesift-worker` process (two contextualizer
 * replicas sharing the context bucket), the loopback fake Ollama. The index
 * must equal local mode's `--context llm` index of the same tree, contexts
 * and their sources included, and a model fault must fail no file.
 */
describe('cluster contextualizer with a chat model (end to end)', () => {
  let work: string;
  let root: string;
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let fake: FakeLlmServer;
  const workers: Worker[] = [];
  const logs = () => workers.map((w) => `--- ${w.stage}\n${w.log}`).join('\n');
  let localDb: string;
  let clusterDb: string;

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-cluster-llm-'));
    root = path.join(work, 'repo');
    writeTree(root, {
      'src/queue.ts': [
        '/** First in, first out, with a fixed capacity. */',
        'export class BoundedQueue<T> {',
        '  private readonly items: T[] = [];',
        '  constructor(private readonly capacity: number) {}',
        '',
        '  /** Adds a value at the back; false when the queue is full. */',
        '  offer(value: T): boolean {',
        '    if (this.items.length >= this.capacity) return false;',
        '    this.items.push(value);',
        '    return true;',
        '  }',
        '}',
        '',
      ].join('\n'),
      'py/config.py': `import json\n\n\n${['parse', 'merge', 'validate'].map(pyFunction).join('\n\n')}`,
      'go/store.go':
        'package store\n\n// Store keeps values by key.\ntype Store struct {\n\tm map[string]int\n}\n\n// Put stores v under k.\nfunc (s *Store) Put(k string, v int) {\n\ts.m[k] = v\n}\n',
      'README.md': '# Queue tools\n\n## Install\n\nRun npm install.\n',
    });
    localDb = path.join(work, 'local', 'index.db');
    clusterDb = path.join(work, 'cluster', 'index.db');
    server = await startNatsServer();
    nc = await connect({ servers: server.url, name: 'codesift-cluster-llm-test' });
    fake = await startFakeLlmServer({ models: [MODEL], mode: { kind: 'good', answer: situate } });
    await ensureStreams(await jetstreamManager(nc));
    const env = { NATS_URL: server.url, CODESIFT_INDEX: clusterDb, CODESIFT_EMBEDDER: 'none' };
    const llmEnv = {
      ...env,
      OLLAMA_HOST: fake.url,
      CODESIFT_LLM_MODEL: MODEL,
      CODESIFT_LLM_TIMEOUT_MS: String(TIMEOUT_MS),
    };
    for (const stage of ['chunker', 'embedder', 'writer', 'symbols']) {
      workers.push(startWorker(stage, env));
    }
    for (let i = 0; i < 2; i++) workers.push(startWorker('contextualizer', llmEnv));
    await workersStarted(workers);
  });
  after(async () => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exit));
    await nc?.close().catch(() => undefined);
    await server?.stop();
    await fake?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const runJob = async (rebuild = false) => {
    const js = jetstream(nc);
    const job = await submitIndexJob(
      js,
      root,
      () => fetchManifest(nc, { root, waitForServiceMs: 30_000 }),
      { rebuild },
    );
    const progress = await watchJob(js, job.jobId, { timeoutMs: 30_000 }).catch((err) => {
      throw new Error(`${err.message}\n${logs()}`);
    });
    return { job, progress };
  };
  // Local mode as a user runs it. In a process of its own: the fake answers
  // from this one, which must not be busy indexing meanwhile.
  const runLocal = async () => {
    const r = await runCli(
      ['index', root, '--index', localDb, '--context', 'llm', '--no-vectors', '--json'],
      {
        env: {
          OLLAMA_HOST: fake.url,
          CODESIFT_LLM_MODEL: MODEL,
          CODESIFT_LLM_TIMEOUT_MS: String(TIMEOUT_MS),
        },
      },
    );
    assert.equal(r.code, 0, r.stderr);
  };
  const sources = (indexPath: string, file?: string) =>
    indexSnapshot(indexPath)
      .chunks.filter((c) => file === undefined || c.path === file)
      .map((c) => `${c.context_source}/${c.context_fallback}`);

  test('contexts from the model, equal to local mode; a rebuild asks the model nothing', async () => {
    let calls = fake.generations().length;
    const first = await runJob();
    assert.equal(first.progress.filesFailed, 0, logs());
    const chunks = indexSnapshot(clusterDb).chunks.length;
    assert.ok(chunks >= 5, `expected chunks, got ${chunks}`);
    assert.equal(fake.generations().length - calls, chunks, 'one call per chunk, across replicas');
    assert.deepEqual(new Set(sources(clusterDb)), new Set(['llm/null']));
    // The job's summary counts them as the writer stored them.
    assert.deepEqual(first.progress.contextSources, { llm: chunks });
    assert.deepEqual(first.progress.contextFallbacks, {});

    await runLocal();
    assert.deepEqual(indexSnapshot(clusterDb), indexSnapshot(localDb));

    // Every file sent again: the shared bucket answers, whichever replica asks.
    calls = fake.generations().length;
    const rebuilt = await runJob(true);
    assert.equal(rebuilt.job.filesSent, 4);
    assert.equal(rebuilt.progress.filesDone, 4);
    assert.equal(fake.generations().length - calls, 0, 'a rebuild makes zero model calls');
    assert.deepEqual(indexSnapshot(clusterDb), indexSnapshot(localDb));
  });

  for (const [name, mode, reason] of [
    ['hangs', { kind: 'hang' }, 'timeout'],
    ['answers garbage', { kind: 'invalid-json' }, 'garbage'],
  ] as const) {
    test(`a model that ${name}: indexing completes, new chunks get the pattern context (${reason})`, async () => {
      fake.setMode(mode);
      try {
        // A new function: its chunk is asked about (and fails); the others are cached.
        const file = path.join(root, 'py/config.py');
        writeFileSync(file, `${readFileSync(file, 'utf8')}\n\n${pyFunction(reason)}`);
        const job = await runJob();
        assert.equal(job.progress.filesDone, 1, logs());
        assert.equal(job.progress.filesFailed, 0, logs());
        const got = sources(clusterDb, 'py/config.py');
        // The job's summary counts the file's chunks as stored (a chunk that
        // fell back before is asked again, so it may fail again too).
        const count = (key: string) => got.filter((g) => g.startsWith(key)).length;
        assert.deepEqual(job.progress.contextSources, {
          llm: count('llm/'),
          pattern: count('pattern/'),
        });
        assert.deepEqual(job.progress.contextFallbacks, { [reason]: count(`pattern/${reason}`) });
        assert.ok(got.includes(`pattern/${reason}`), got.join(' '));
        assert.ok(got.includes('llm/null'), 'unchanged chunks keep their cached context');

        await runLocal();
        assert.deepEqual(indexSnapshot(clusterDb), indexSnapshot(localDb));
      } finally {
        fake.setMode({ kind: 'good', answer: situate });
      }
    });
  }
});
