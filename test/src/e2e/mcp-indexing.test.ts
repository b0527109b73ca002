import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { cliBin, LOCAL_MCP_TOOLS } from '../support/cli.js';
import { withMcpOverHttp } from '../support/mcp-http.js';
import { GRAPH_TS, writeTree } from '../support/tree.js';

const TOKEN = 'e2e-index-token-9c1f2b7a4d6e';

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** A repository never indexed: the graph, and enough other files that a job takes a moment. */
function makeRepo(dir: string): void {
  const files: Record<string, string> = {
    'src/graph.ts': GRAPH_TS,
    'src/use.ts': "import { Graph } from './graph';\n\nnew Graph().insertEdgeBetween('a', 'b');\n",
  };
  for (let i = 0; i < 120; i++) {
    files[`src/gen/module_${i}.py`] =
      `def helper_${i}(value):\n    """Scales value number ${i}."""\n    return value * ${i}\n`;
  }
  writeTree(dir, files);
}

type Call = (
  name: string,
  args?: Record<string, unknown>,
  onprogress?: (p: Progress) => void,
) => Promise<CallToolResult>;

function caller(client: Client): Call {
  return async (name, args = {}, onprogress) =>
    (await client.callTool(
      { name, arguments: args },
      undefined,
      onprogress ? { onprogress, resetTimeoutOnProgress: true, timeout: 120_000 } : {},
    )) as CallToolResult;
}

/**
 * The agent's round trip on a root that has no index: search says to index,
 * index_codebase reports progress and returns, then search, outline and
 * status see the index, clear_index drops it and search says to index again.
 */
async function indexSearchClear(call: Call, root: string): Promise<void> {
  const before = await call('search_code', { query: 'insertEdgeBetween' });
  assert.equal(before.isError, true);
  assert.match(text(before), /not indexed yet/);
  assert.match(text(before), /index_codebase/);
  const empty = await call('index_status');
  assert.equal(empty.isError, undefined, text(empty));
  assert.equal((empty.structuredContent as { indexed: boolean }).indexed, false);
  assert.match(text(empty), /call index_codebase/);

  const progress: Progress[] = [];
  const indexed = await call('index_codebase', {}, (p) => progress.push(p));
  assert.equal(indexed.isError, undefined, text(indexed));
  assert.match(text(indexed), /Indexed .* 122 files new or changed/);
  const job = (indexed.structuredContent as { job: { files_done: number; files_total: number } })
    .job;
  assert.deepEqual({ done: job.files_done, total: job.files_total }, { done: 122, total: 122 });
  assert.ok(progress.length >= 1, 'progress notifications arrived');
  // The server sends 122 of 122 last, but an SDK 1.x client drops a
  // notification that it reads in one chunk with the answer (see
  // LAST_PROGRESS_GAP_MS in index-codebase.ts), which a loaded machine can
  // cause: the answer above carries the final count either way.
  const last = progress.at(-1)!;
  assert.ok(last.progress <= 122, `progress ${last.progress} of ${last.total}`);
  if (last.progress === 122) assert.equal(last.total, 122);
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i]!.progress > progress[i - 1]!.progress, 'progress only grows');
  }

  const search = await call('search_code', { query: 'insertEdgeBetween' });
  assert.equal(search.isError, undefined, text(search));
  const results = (search.structuredContent as { results: { path: string }[] }).results;
  assert.equal(results[0]?.path, 'src/graph.ts');

  const outline = await call('get_file_outline', { path: './src/graph.ts' });
  assert.equal(outline.isError, undefined, text(outline));
  const symbols = (
    outline.structuredContent as {
      symbols: { name: string; kind: string; start_line: number; end_line: number }[];
    }
  ).symbols;
  const method = symbols.find((s) => s.name === 'insertEdgeBetween');
  assert.deepEqual(
    { kind: method?.kind, start: method?.start_line, end: method?.end_line },
    { kind: 'method', start: 6, end: 8 },
    text(outline),
  );
  assert.ok(symbols.some((s) => s.name === 'Graph' && s.kind === 'class'));
  assert.match(text(outline), /^ {4}6-8 {2}method insertEdgeBetween/m);
  const refs = await call('find_references', { name: 'Graph.insertEdgeBetween' });
  assert.equal(refs.isError, undefined, text(refs));
  const used = (
    refs.structuredContent as { references: { path: string; line: number; definition: boolean }[] }
  ).references;
  assert.deepEqual(
    used.map((r) => `${r.path}:${r.line}${r.definition ? ' def' : ''}`).sort(),
    ['src/graph.ts:6 def', 'src/use.ts:3'],
    text(refs),
  );
  const notIndexed = await call('get_file_outline', { path: 'src/nope.ts' });
  assert.equal(notIndexed.isError, true);

  const status = await call('index_status');
  const s = status.structuredContent as {
    indexed: boolean;
    files: number;
    updated_at: string | null;
    root: string;
    job: { state: string } | null;
  };
  assert.equal(s.indexed, true);
  assert.equal(s.files, 122);
  assert.equal(s.root, root);
  assert.ok(s.updated_at);
  assert.equal(s.job?.state, 'succeeded');

  const cleared = await call('clear_index');
  assert.equal(cleared.isError, undefined, text(cleared));
  assert.ok(!existsSync(path.join(root, '.codesift', 'index.db')));
  const after = await call('search_code', { query: 'insertEdgeBetween' });
  assert.equal(after.isError, true);
  assert.match(text(after), /index_codebase/);
  const again = await call('clear_index');
  assert.match(text(again), /nothing was deleted/);
}

describe('codesift mcp on an unindexed root (end to end)', () => {
  let work: string;
  before(() => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-mcp-index-')));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('stdio: starts without an index, indexes with progress, searches, outlines, clears', async () => {
    const root = path.join(work, 'stdio');
    makeRepo(root);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp', '--keyword-only'],
      cwd: root,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e-index', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), LOCAL_MCP_TOOLS);
      const clear = tools.find((t) => t.name === 'clear_index')!;
      assert.equal(clear.annotations?.destructiveHint, true);
      assert.match(clear.description ?? '', /^Destructive/);
      await indexSearchClear(caller(client), root);

      // Two calls at once: one job runs, the other is told so.
      const call = caller(client);
      const both = await Promise.all([
        call('index_codebase', { rebuild: true }),
        call('index_codebase', { rebuild: true }),
      ]);
      const refused = both.filter((r) => r.isError);
      assert.equal(refused.length, 1, both.map(text).join('\n---\n'));
      assert.match(text(refused[0]!), /already (running|queued)/);
      const search = await call('search_code', { query: 'helper_7' });
      assert.equal(search.isError, undefined, text(search));
    } finally {
      await client.close();
    }
  });

  test('http: the same round trip over streamable HTTP, progress included', async () => {
    const root = path.join(work, 'http');
    makeRepo(root);
    await withMcpOverHttp(['--keyword-only'], { cwd: root, token: TOKEN }, (client) =>
      indexSearchClear(caller(client), root),
    );
  });

  test('--auto-index: the handshake does not wait, the index appears in the background', async () => {
    const root = path.join(work, 'auto');
    makeRepo(root);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp', '--keyword-only', '--auto-index', '--root', root],
      cwd: work,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e-auto', version: '0.0.0' });
    await client.connect(transport);
    try {
      const call = caller(client);
      let status: { indexed: boolean; job: { state: string } | null } | undefined;
      for (let i = 0; i < 200; i++) {
        status = (await call('index_status')).structuredContent as typeof status;
        if (status?.indexed) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status?.indexed, true);
      assert.equal(status?.job?.state, 'succeeded');
      const search = await call('search_code', { query: 'insertEdgeBetween' });
      assert.equal(
        (search.structuredContent as { results: { path: string }[] }).results[0]?.path,
        'src/graph.ts',
      );
    } finally {
      await client.close();
    }
  });
});
