import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connectCodesift } from '@codesift/grpc';
import { JobState } from '@codesift/proto';
import { status } from '@grpc/grpc-js';
import { collect, type RunResult, runCli, startCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

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
  'src/graph.test.ts': `import { Graph } from './graph';
test('graph', () => { new Graph(); });
`,
  'py/text_utils.py': `def slugify(text):
    """Lower-cases text and joins words with dashes."""
    return "-".join(text.lower().split())
`,
  'README.md': '# Demo\n\nA tiny repository served over gRPC.\n',
};

interface Listening {
  address: string;
  port: number;
  indexPath: string;
  root: string;
  auth: boolean;
}

/** Reads the `--json` listening line from the server's stdout. */
function listening(child: ChildProcess): Promise<Listening> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const onData = (d: Buffer) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        child.stdout?.off('data', onData);
        resolve(JSON.parse(out.slice(0, nl)));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${err}`)));
  });
}

/** `codesift serve` as a user runs it, queried by a real gRPC client. */
describe('codesift serve (gRPC, end to end)', () => {
  let work: string;
  let root: string;
  let server: ChildProcess;
  let info: Listening;
  let exited: Promise<RunResult>;

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-grpc-'));
    root = path.join(work, 'repo');
    writeTree(root, FILES);
    const indexed = await runCli(['index', root, '--no-vectors', '--quiet']);
    assert.equal(indexed.code, 0, indexed.stderr);
    // Started from inside the tree: the index is found upwards, as git finds .git.
    server = startCli(['serve', '--port', '0', '--json'], {
      cwd: path.join(root, 'src'),
      env: { CODESIFT_TOKEN: 'e2e-token' },
    });
    const ready = listening(server);
    exited = collect(server, 120_000);
    info = await ready;
  });
  after(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  test('prints its address, serves search, symbols, status and health', async () => {
    assert.match(info.address, /^127\.0\.0\.1:\d+$/);
    assert.ok(info.port > 0);
    assert.equal(info.indexPath, path.join(root, '.codesift', 'index.db'));
    assert.equal(info.auth, true);

    const client = connectCodesift(info.address, { token: 'e2e-token' });
    try {
      const res = await client.search.search({ query: 'addEdge', limit: 5, explain: true });
      assert.ok(res.results.length > 0);
      const top = res.results[0]!;
      assert.equal(top.path, 'src/graph.ts');
      assert.ok(top.range!.startLine >= 1 && top.range!.endLine >= top.range!.startLine);
      assert.match(top.snippet, /addEdge/);
      assert.ok(top.explain && top.explain.keywordRank === 1);
      assert.ok(res.totalChunks >= 4n);
      assert.ok(res.timings.some((t) => t.stage === 'total'));

      const py = await client.search.search({
        query: 'slugify',
        filter: { languages: ['python'] },
      });
      assert.equal(py.results[0]?.path, 'py/text_utils.py');

      const symbols = await client.symbols.lookupSymbol({ name: 'addEdge' });
      assert.equal(symbols.symbols[0]?.path, 'src/graph.ts');

      const st = await client.index.getIndexStatus({});
      assert.equal(st.root, root);
      assert.equal(st.files, 4n);

      assert.equal(await client.checkHealth(), 'SERVING');
      assert.equal(await client.checkHealth('codesift.v1.SearchService'), 'SERVING');
    } finally {
      client.close();
    }
  });

  test('calls without the token are refused, health is open', async () => {
    const anonymous = connectCodesift(info.address);
    try {
      await assert.rejects(anonymous.search.search({ query: 'addEdge' }), (e: unknown) => {
        return (e as { code: number }).code === status.UNAUTHENTICATED;
      });
      assert.equal(await anonymous.checkHealth(), 'SERVING');
    } finally {
      anonymous.close();
    }
  });

  test('StartIndex re-indexes the tree; progress streams to the end and search sees the change', async () => {
    writeFileSync(
      path.join(root, 'src', 'queue.ts'),
      'export function enqueueWorkItem(item: string): string[] {\n  return [item];\n}\n',
    );
    const client = connectCodesift(info.address, { token: 'e2e-token' });
    try {
      const { jobId } = await client.index.startIndex({ noVectors: true });
      const states: JobState[] = [];
      let last: Awaited<ReturnType<typeof client.index.getIndexStatus>>['job'];
      for await (const m of client.index.watchIndexProgress({ jobId }, { deadlineMs: 60_000 })) {
        states.push(m.progress!.state);
        last = m.progress;
      }
      assert.equal(states.at(-1), JobState.SUCCEEDED, last?.error);
      assert.equal(last?.filesChanged, 1n);
      await assert.rejects(
        client.index.startIndex({ root: work, noVectors: true }),
        (e: unknown) => (e as { code: number }).code === status.PERMISSION_DENIED,
        'the server only indexes under its scan roots (by default its own root)',
      );
      // The engine is reopened after the job; give it a moment.
      let found = '';
      for (let i = 0; i < 50 && !found; i++) {
        const res = await client.search.search({ query: 'enqueueWorkItem' });
        found = res.results[0]?.path ?? '';
        if (!found) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(found, 'src/queue.ts');
    } finally {
      client.close();
    }
  });

  test('SIGTERM shuts it down cleanly with exit code 0', async () => {
    server.kill('SIGTERM');
    const r = await exited;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /codesift gRPC server listening on 127\.0\.0\.1:\d+ \(index: /);
    assert.match(r.stderr, /stopped/);
  });

  test('--threads 0 answers on the main thread like the pool does; a bad count is a usage error', async () => {
    const bad = await runCli([
      'serve',
      '--threads',
      'many',
      '--index',
      path.join(root, '.codesift'),
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--threads must be an integer from 0 to 64, got many/);

    const results = async (threads: string) => {
      const child = startCli([
        'serve',
        '--port',
        '0',
        '--json',
        '--threads',
        threads,
        '--index',
        path.join(root, '.codesift'),
        '--insecure-no-auth',
      ]);
      const collected = collect(child, 60_000);
      const { address } = await listening(child);
      const client = connectCodesift(address);
      try {
        const res = await client.search.search({
          query: 'insert an edge into the graph',
          limit: 5,
        });
        return res.results.map((r) => [r.path, r.range?.startLine, r.score]);
      } finally {
        client.close();
        child.kill('SIGINT');
        assert.equal((await collected).code, 0);
      }
    };
    const [single, pooled] = [await results('0'), await results('2')];
    assert.ok(single.length > 0);
    assert.deepEqual(pooled, single);
  });

  test('a taken port is a clear error (exit 1)', async () => {
    const blocker = startCli([
      'serve',
      '--port',
      '0',
      '--json',
      '--index',
      path.join(root, '.codesift'),
      '--insecure-no-auth',
    ]);
    const collected = collect(blocker, 60_000);
    const { port } = await listening(blocker);
    try {
      const r = await runCli(
        [
          'serve',
          '--port',
          String(port),
          '--index',
          path.join(root, '.codesift'),
          '--insecure-no-auth',
        ],
        {
          timeoutMs: 60_000,
        },
      );
      assert.equal(r.code, 1);
      assert.match(r.stderr, /already in use/);
      assert.match(r.stderr, /--port/);
      assert.doesNotMatch(r.stderr, /No address added/);
    } finally {
      blocker.kill('SIGINT');
      assert.equal((await collected).code, 0);
    }
  });
});
