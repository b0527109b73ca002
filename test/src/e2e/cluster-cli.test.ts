import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startNatsServer } from '@codesift/bus/testing';
import { connectCodesift } from '@codesift/grpc';
import { collect, runCli, startCli } from '../support/cli.js';
import { freePort, isAlive, startDevCluster, startWorker } from '../support/processes.js';
import { writeTree } from '../support/tree.js';

const TREE = {
  'src/graph.ts': `/** A directed graph of string nodes. */
export class Graph {
  private readonly edges: [string, string][] = [];

  /** Inserts an edge between two nodes. */
  addEdge(from: string, to: string): void {
    this.edges.push([from, to]);
  }
}
`,
  'src/graph.test.ts': `import { Graph } from './graph.js';

export function testAddEdge(): void {
  new Graph().addEdge('a', 'b');
}
`,
  'src/retry.ts': `/** Retries a failing async operation with exponential backoff. */
export async function retryWithBackoff<T>(op: () => Promise<T>, attempts = 5): Promise<T> {
  let delay = 100;
  for (let i = 0; ; i++) {
    try {
      return await op();
    } catch (err) {
      if (i + 1 >= attempts) throw err;
      await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
  }
}
`,
  'py/orders.py': `def parse_amount(text):
    """Parses an order amount like '12.50'."""
    return round(float(text.strip()), 2)
`,
  'go/store.go':
    'package store\n\n// Store keeps values by key.\ntype Store struct {\n\tm map[string]int\n}\n\n// Put stores v under k.\nfunc (s *Store) Put(k string, v int) {\n\ts.m[k] = v\n}\n',
  'docs/guide.md': '# Guide\n\nCall addEdge to connect two nodes of the graph.\n',
  // No grammar: chunked by the brace recognizer, which the summary reports.
  'ios/Cart.swift':
    'struct Cart {\n  var items: [String] = []\n\n  func total() -> Int {\n    return items.count\n  }\n}\n',
};

const QUERIES = ['addEdge', 'retryWithBackoff', 'parse order amount', 'Store Put', 'graph edges'];

/** `npm run cluster` and the --remote flags of `codesift index` and `codesift search`. */
describe('codesift cluster (npm run cluster, index --remote, search --remote)', () => {
  let work: string;
  let cluster: ChildProcess | undefined;
  let exited: Promise<number | null>;
  const pids: number[] = [];

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-cluster-cli-'));
  });
  after(async () => {
    // Only after a failed run: the test itself stops the cluster.
    if (cluster && cluster.exitCode === null) {
      cluster.kill('SIGKILL');
      await exited;
    }
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  test('indexes through the bus and answers over gRPC like local mode; SIGTERM stops all', async () => {
    const started = performance.now();
    const root = path.join(work, 'repo');
    const localRoot = path.join(work, 'local-repo');
    writeTree(root, TREE);
    writeTree(localRoot, TREE);
    const c = await startDevCluster({ dir: path.join(work, 'cluster'), cwd: work });
    cluster = c.proc;
    exited = c.exited;
    pids.push(...c.pids);
    const proc = c.proc;
    const dir = path.join(work, 'cluster');
    const names = [...c.output().matchAll(/^up\s+(\S+)/gm)].map((m) => m[1]).sort();
    assert.deepEqual(names, [
      'chunker',
      'contextualizer',
      'embedder',
      'nats',
      'query',
      'scanner',
      'symbols',
      'writer',
    ]);

    const { natsUrl, grpc } = c;
    const indexPath = path.join(dir, 'index.db');
    const remote = await runCli(
      [
        'index',
        '--remote',
        natsUrl,
        // No --index: the plan and the totals come from the writer over NATS.
        root,
        '--json',
      ],
      { env: c.natsEnv },
    );
    assert.equal(remote.code, 0, `${remote.stderr}\n${c.output()}`);
    const summary = JSON.parse(remote.stdout);
    const local = await runCli(['index', localRoot, '--no-vectors', '--json', '-q']);
    assert.equal(local.code, 0, local.stderr);
    const localSummary = JSON.parse(local.stdout);
    assert.equal(summary.root, root);
    // Where the writer says its index lives.
    assert.equal(summary.indexPath, indexPath);
    assert.equal(summary.embedder, null);
    assert.equal(summary.filesFailed, 0);
    // Chunks by context source, as local mode counts them (no chat model: all pattern).
    assert.deepEqual(summary.contextSources, {
      sources: localSummary.context.sources,
      fallbacks: localSummary.context.fallbacks,
    });
    assert.equal(summary.contextSources.sources.pattern, summary.chunks);
    for (const key of [
      'filesScanned',
      'filesIndexed',
      'filesNew',
      'filesChanged',
      'filesUnchanged',
      'filesDeleted',
      'chunks',
      'symbols',
      'vectors',
      'totals',
      'skipped',
      'noAst',
      'structural',
    ]) {
      assert.deepEqual(summary[key], localSummary[key], key);
    }
    // How files were chunked is counted from the writer's job events, as a local run counts it.
    assert.deepEqual(summary.structural.swift?.paths, ['ios/Cart.swift'], JSON.stringify(summary));
    assert.equal(summary.filesNew, Object.keys(TREE).length);
    assert.match(remote.stderr, /indexing \d+ of \d+ files/, 'the same progress lines');

    for (const query of QUERIES) {
      const r = await runCli(['search', '--remote', grpc, query, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const l = await runCli(['search', '--index', localRoot, query, '--json', '--keyword-only']);
      assert.equal(l.code, 0, l.stderr);
      const got = JSON.parse(r.stdout);
      const want = JSON.parse(l.stdout);
      assert.ok(want.results.length > 0, query);
      // Paths, line ranges, symbols, scores and snippets: everything but timings.
      assert.deepEqual(got.results, want.results, query);
      assert.equal(got.totalChunks, want.totalChunks);
      assert.equal(got.fusion, want.fusion);
    }
    // Explained, the score parts match too (definition and anchor boosts included).
    const explained = await runCli(['search', '--remote', grpc, 'addEdge', '--json', '--explain']);
    const explainedLocal = await runCli([
      'search',
      '--index',
      localRoot,
      'addEdge',
      '--json',
      '--explain',
      '--keyword-only',
    ]);
    const parts = (out: string) =>
      (JSON.parse(out).results as { path: string; explain: unknown }[]).map((r) => [
        r.path,
        r.explain,
      ]);
    assert.deepEqual(parts(explained.stdout), parts(explainedLocal.stdout));
    assert.ok(
      JSON.stringify(parts(explained.stdout)).includes('"anchors":["addEdge"]'),
      'the anchors travel',
    );

    // Text output: the same lines, paths shown relative to each root.
    const text = await runCli(['search', '--remote', grpc, 'addEdge', '-n', '2'], { cwd: root });
    const textLocal = await runCli(['search', 'addEdge', '-n', '2', '--keyword-only'], {
      cwd: localRoot,
    });
    const strip = (s: string) => s.replace(/[\d.]+ ms/, 'T ms');
    assert.equal(strip(text.stdout), strip(textLocal.stdout));

    // Clear errors when nothing listens.
    const closed = await freePort();
    const noNats = await runCli([
      'index',
      '--remote',
      `nats://127.0.0.1:${closed}`,
      '--index',
      indexPath,
      root,
    ]);
    assert.equal(noNats.code, 1);
    assert.match(noNats.stderr, /cannot reach NATS[\s\S]*npm run cluster/);
    const noGrpc = await runCli(['search', '--remote', `127.0.0.1:${closed}`, 'x']);
    assert.equal(noGrpc.code, 1);
    assert.match(noGrpc.stderr, /cannot reach the query service[\s\S]*npm run cluster/);

    proc.kill('SIGTERM');
    assert.equal(await exited, 0, c.output());
    assert.match(c.output(), /cluster stopped/);
    assert.equal(pids.length, 8);
    assert.deepEqual(
      pids.filter((pid) => isAlive(pid)),
      [],
      'every service process is gone',
    );
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 40, `took ${seconds.toFixed(1)} s`);
  });

  test('one cluster index holds many repositories, each job updating its own', async () => {
    const graphRoot = path.join(work, 'checkouts', 'graph');
    const billingRoot = path.join(work, 'checkouts', 'billing');
    writeTree(graphRoot, TREE);
    writeTree(billingRoot, {
      'src/invoice.ts':
        '/** Totals the lines of an invoice. */\nexport function computeInvoiceTotal(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}\n',
      'src/graph-report.ts':
        '/** Reports on the graph of payments: calls addEdge. */\nexport const report = 1;\n',
    });
    const c = await startDevCluster({ dir: path.join(work, 'cluster-repos'), cwd: work });
    pids.push(...c.pids);
    try {
      const indexAs = (root: string, ...flags: string[]) =>
        runCli(['index', '--remote', c.natsUrl, root, '--json', ...flags], { env: c.natsEnv });
      const graph = await indexAs(graphRoot, '--repository', 'acme/graph');
      assert.equal(graph.code, 0, `${graph.stderr}\n${c.output()}`);
      assert.equal(JSON.parse(graph.stdout).filesNew, Object.keys(TREE).length);
      const billing = await indexAs(billingRoot, '--repository', 'billing');
      assert.equal(billing.code, 0, billing.stderr);
      const billed = JSON.parse(billing.stdout);
      // The second repository deletes nothing of the first.
      assert.equal(billed.filesNew, 2);
      assert.equal(billed.filesDeleted, 0);
      assert.equal(billed.totals.files, Object.keys(TREE).length + 2);

      const search = async (...args: string[]) => {
        const r = await runCli(['search', '--remote', c.grpc, '--json', ...args]);
        assert.equal(r.code, 0, r.stderr);
        return (JSON.parse(r.stdout).results as { path: string }[]).map((x) => x.path);
      };
      assert.equal((await search('addEdge'))[0], 'acme/graph/src/graph.ts');
      assert.equal((await search('computeInvoiceTotal'))[0], 'billing/src/invoice.ts');
      // A repository is a path prefix: path filters scope a search to it.
      const inBilling = await search('addEdge', '--path', 'billing/**');
      assert.deepEqual(inBilling, ['billing/src/graph-report.ts']);

      // Re-indexing one repository after a delete removes its file only.
      rmSync(path.join(billingRoot, 'src', 'graph-report.ts'));
      const again = await indexAs(billingRoot, '--repository', 'billing');
      assert.equal(again.code, 0, again.stderr);
      const summary = JSON.parse(again.stdout);
      assert.equal(summary.filesDeleted, 1);
      assert.equal(summary.filesUnchanged, 1);
      assert.equal(summary.totals.files, Object.keys(TREE).length + 1);
      assert.deepEqual(await search('addEdge', '--path', 'billing/**'), []);
      assert.equal((await search('addEdge'))[0], 'acme/graph/src/graph.ts');

      // The query service names the repositories, and reads a snippet from the
      // directory its repository was indexed from.
      const client = connectCodesift(c.grpc);
      try {
        const status = await client.index.getIndexStatus({});
        assert.deepEqual(status.repositories, ['acme/graph', 'billing']);
        assert.equal(status.root, '');
        const snippet = await client.search.getSnippet({
          path: 'billing/src/invoice.ts',
          range: { startLine: 2, endLine: 2 },
        });
        assert.match(snippet.text, /export function computeInvoiceTotal/);
      } finally {
        client.close();
      }

      // An unnamed tree would plan every repository's files as deleted: refused.
      const unnamed = await indexAs(billingRoot);
      assert.equal(unnamed.code, 1);
      assert.match(
        unnamed.stderr,
        /holds repositories \(acme\/graph, billing\)[\s\S]*--repository/,
      );
      const badName = await indexAs(billingRoot, '--repository', '../up');
      assert.equal(badName.code, 2, badName.stderr);
      assert.match(badName.stderr, /invalid repository name '\.\.\/up'/);
      const localOnly = await runCli(['index', billingRoot, '--repository', 'billing']);
      assert.equal(localOnly.code, 2);
      assert.match(localOnly.stderr, /--repository applies with --remote only/);
      assert.equal((await search('computeInvoiceTotal'))[0], 'billing/src/invoice.ts');

      // Removing a repository deletes its files and forgets its name.
      const removed = await runCli(
        ['index', '--remote', c.natsUrl, '--repository', 'billing', '--remove', '--json'],
        { env: c.natsEnv },
      );
      assert.equal(removed.code, 0, removed.stderr);
      const gone = JSON.parse(removed.stdout);
      assert.equal(gone.filesDeleted, 1);
      assert.equal(gone.totals.files, Object.keys(TREE).length);
      assert.ok(!(await search('computeInvoiceTotal')).some((p) => p.startsWith('billing/')));
      const after = connectCodesift(c.grpc);
      try {
        assert.deepEqual((await after.index.getIndexStatus({})).repositories, ['acme/graph']);
      } finally {
        after.close();
      }
      const removedTwice = await runCli(
        ['index', '--remote', c.natsUrl, '--repository', 'billing', '--remove'],
        { env: c.natsEnv },
      );
      assert.equal(removedTwice.code, 1);
      assert.match(removedTwice.stderr, /holds no files of repository 'billing'/);
      const noName = await runCli(['index', '--remote', c.natsUrl, '--remove']);
      assert.equal(noName.code, 2);
      assert.match(noName.stderr, /--remove needs --remote <nats-url> and --repository <name>/);
      const withDir = await runCli([
        'index',
        '--remote',
        c.natsUrl,
        '--repository',
        'x',
        '--remove',
        billingRoot,
      ]);
      assert.equal(withDir.code, 2);
      assert.match(withDir.stderr, /--remove takes no <dir>/);
    } finally {
      c.proc.kill('SIGTERM');
      assert.equal(await c.exited, 0, c.output());
    }
  });

  test('index --remote says so when the cluster makes no progress, and Ctrl-C stops it', async () => {
    // Only NATS and the writer: the plan comes back, but no chunker takes the files.
    const server = await startNatsServer();
    const writer = startWorker('writer', {
      NATS_URL: server.url,
      CODESIFT_INDEX: path.join(work, 'stalled', 'index.db'),
      CODESIFT_EMBEDDER: 'none',
    });
    try {
      const root = path.join(work, 'stalled-repo');
      writeTree(root, { 'a.ts': 'export const a = 1;\n' });
      const cli = startCli(['index', '--remote', server.url, root], {
        env: { CODESIFT_STALL_NOTICE_MS: '500' },
      });
      const result = collect(cli, 30_000);
      let stderr = '';
      cli.stderr?.on('data', (b: Buffer) => {
        stderr += b.toString();
      });
      const deadline = Date.now() + 20_000;
      while (!/no progress from the cluster/.test(stderr)) {
        assert.ok(Date.now() < deadline, `no stall notice:\n${stderr}\n${writer.log}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(
        stderr,
        /no progress from the cluster for \d+ s \(0 files done\): are its chunker, embedder and writer services running\?/,
      );
      cli.kill('SIGINT');
      const r = await result;
      assert.equal(r.code, 1);
      assert.match(r.stderr, /cancelled; the cluster finishes the files already sent/);
    } finally {
      writer.proc.kill('SIGTERM');
      await writer.exit;
      await server.stop();
    }
  });
});
