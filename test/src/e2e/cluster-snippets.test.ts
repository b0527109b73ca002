// Snippets without the checkout: `npm run cluster` indexes a tree, the tree
// is then moved away, and the query service still answers get_snippet and
// search snippets with the indexed text, because the writer kept each file's
// text beside its chunks (file_texts in the SQLite cluster store).
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CodesiftClient, connectCodesift } from '@codesift/grpc';
import { runCli } from '../support/cli.js';
import { type DevCluster, startDevCluster } from '../support/processes.js';
import { writeTree } from '../support/tree.js';

const GRAPH = [
  '/** A directed graph of string nodes. */',
  'export class Graph {',
  '  private readonly edges: [string, string][] = [];',
  '',
  '  /** Inserts an edge between two nodes. */',
  '  addEdge(from: string, to: string): void {',
  '    this.edges.push([from, to]);',
  '  }',
  '}',
  '',
].join('\n');
const CONFIG =
  'import json\n\n\ndef parse_config(path):\n    """Parse the file."""\n    return json.load(open(path))\n';

describe('cluster snippets come from the stores, not the checkout (end to end)', () => {
  let work: string;
  let cluster: DevCluster | undefined;
  let client: CodesiftClient | undefined;

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-cluster-snippets-'));
  });
  after(async () => {
    client?.close();
    if (cluster && cluster.proc.exitCode === null) {
      cluster.proc.kill('SIGTERM');
      await cluster.exited;
    }
    rmSync(work, { recursive: true, force: true });
  });

  test('get_snippet and search snippets answer after the checkout is moved away', async () => {
    const root = path.join(work, 'checkouts', 'repo');
    writeTree(root, { 'src/graph.ts': GRAPH, 'py/config.py': CONFIG });
    const c = await startDevCluster({ dir: path.join(work, 'cluster'), cwd: work });
    cluster = c;
    const indexed = await runCli(['index', '--remote', c.natsUrl, root, '--json'], {
      env: c.natsEnv,
    });
    assert.equal(indexed.code, 0, `${indexed.stderr}\n${c.output()}`);
    assert.equal(JSON.parse(indexed.stdout).filesNew, 2);

    // The query service no longer sees the files where the scanner read them.
    renameSync(root, path.join(work, 'checkouts', 'moved'));
    client = connectCodesift(c.grpc);
    const snippet = await client.search.getSnippet({
      path: 'src/graph.ts',
      range: { startLine: 5, endLine: 8 },
    });
    assert.equal(snippet.text, GRAPH.split('\n').slice(4, 8).join('\n'));
    assert.deepEqual([snippet.range?.startLine, snippet.range?.endLine], [5, 8]);
    assert.equal(snippet.language, 'typescript');
    assert.equal(snippet.stale, false, 'a stored text is what the index holds');
    // Clamped to the stored file's end, as on disk.
    const whole = await client.search.getSnippet({
      path: 'py/config.py',
      range: { startLine: 1, endLine: 999 },
    });
    assert.equal(whole.text, CONFIG.trimEnd());
    // Only indexed files, as before.
    await assert.rejects(
      client.search.getSnippet({ path: 'src/other.ts', range: { startLine: 1, endLine: 2 } }),
      /not an indexed file/,
    );

    const found = await client.search.search({ query: 'addEdge', limit: 3 });
    const top = found.results[0];
    assert.equal(top?.path, 'src/graph.ts');
    assert.ok(top.snippet.includes('addEdge(from: string, to: string)'), top.snippet);
    assert.equal(top.stale, false);
  });
});
