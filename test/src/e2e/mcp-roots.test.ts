import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliBin, LOCAL_MCP_TOOLS, runCli } from '../support/cli.js';
import { withMcpOverHttp } from '../support/mcp-http.js';
import { writeTree } from '../support/tree.js';

const TOKEN = 'e2e-roots-token-3b8d1e6f0a2c';

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** Two roots with nothing in common but a file name, neither indexed yet. */
function makeRoots(work: string): { left: string; right: string } {
  const left = path.join(work, 'left');
  const right = path.join(work, 'right');
  writeTree(left, {
    'src/ledger.ts':
      'export function balanceLedgerEntries(rows: number[]): number {\n  return rows.reduce((a, b) => a + b, 0);\n}\n',
    'README.md': '# Left\n\nThe ledger.\n',
  });
  writeTree(right, {
    'src/telescope.py': 'def focus_telescope_lens(distance):\n    return distance * 2\n',
    'README.md': '# Right\n\nThe telescope.\n',
  });
  return { left, right };
}

type Call = (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;

function caller(client: Client): Call {
  return async (name, args = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, {
      timeout: 120_000,
    })) as CallToolResult;
}

function paths(r: CallToolResult): string[] {
  return (r.structuredContent as { results: { path: string }[] }).results.map((x) => x.path);
}

/**
 * What an agent does with a server of two roots, named "ledger" (--root
 * ledger=left) and "right" (its directory's name).
 */
async function twoRoots(client: Client, left: string, right: string): Promise<void> {
  const call = caller(client);
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name).sort(),
    [...LOCAL_MCP_TOOLS, 'list_repositories'].sort(),
  );
  for (const tool of tools.filter((t) => t.name !== 'list_repositories')) {
    const repository = tool.inputSchema.properties?.repository as { enum?: string[] } | undefined;
    assert.deepEqual(repository?.enum, ['ledger', 'right'], tool.name);
    assert.match(tool.description ?? '', /pass repository \(ledger, right\)/, tool.name);
  }

  const listed = await call('list_repositories');
  assert.deepEqual((listed.structuredContent as { repositories: unknown[] }).repositories, [
    {
      name: 'ledger',
      root: left,
      index_path: path.join(left, '.codesift', 'index.db'),
      indexed: false,
    },
    {
      name: 'right',
      root: right,
      index_path: path.join(right, '.codesift', 'index.db'),
      indexed: false,
    },
  ]);

  // Indexing one root writes its index alone.
  const indexed = await call('index_codebase', { repository: 'ledger' });
  assert.equal(indexed.isError, undefined, text(indexed));
  assert.equal((indexed.structuredContent as { root: string }).root, left);
  assert.ok(existsSync(path.join(left, '.codesift', 'index.db')));
  assert.ok(!existsSync(path.join(right, '.codesift')), 'the other root was not indexed');
  const notYet = await call('search_code', { repository: 'right', query: 'focus_telescope_lens' });
  assert.equal(notYet.isError, true);
  assert.match(text(notYet), /index_codebase/);
  const other = await call('index_codebase', { repository: 'right' });
  assert.equal(other.isError, undefined, text(other));

  // Each search sees its own root's files only.
  const ledger = await call('search_code', { repository: 'ledger', query: 'balanceLedgerEntries' });
  assert.equal(ledger.isError, undefined, text(ledger));
  assert.equal(paths(ledger)[0], 'src/ledger.ts');
  const fromRight = await call('search_code', {
    repository: 'right',
    query: 'focus_telescope_lens',
  });
  assert.equal(paths(fromRight)[0], 'src/telescope.py');
  for (const [repository, foreign] of [
    ['ledger', 'src/telescope.py'],
    ['right', 'src/ledger.ts'],
  ] as const) {
    const r = await call('search_code', {
      repository,
      query: 'README telescope ledger',
      limit: 50,
    });
    assert.ok(!paths(r).includes(foreign), `${repository}: ${paths(r).join(', ')}`);
  }
  const readmes = await Promise.all(
    ['ledger', 'right'].map((repository) =>
      call('get_snippet', { repository, path: 'README.md', start_line: 1, end_line: 1 }),
    ),
  );
  assert.deepEqual(
    readmes.map((r) => (r.structuredContent as { text: string }).text.trim()),
    ['# Left', '# Right'],
  );
  const elsewhere = await call('get_snippet', {
    repository: 'ledger',
    path: 'src/telescope.py',
    start_line: 1,
  });
  assert.equal(elsewhere.isError, true, text(elsewhere));

  // Each root gets its own watch once indexed (started in the background).
  for (const repository of ['ledger', 'right']) {
    let status: { root: string; watching: boolean } | undefined;
    for (let i = 0; i < 300 && !status?.watching; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      status = (await call('index_status', { repository })).structuredContent as typeof status;
    }
    assert.equal(status?.root, repository === 'ledger' ? left : right);
    assert.equal(status?.watching, true, repository);
  }

  // No repository, or one not served: an error naming the served ones.
  const omitted = await call('search_code', { query: 'balanceLedgerEntries' });
  assert.equal(omitted.isError, true);
  assert.match(text(omitted), /several repositories[\s\S]*ledger, right/);
  const unknown = await call('get_snippet', {
    repository: 'nope',
    path: 'README.md',
    start_line: 1,
  });
  assert.equal(unknown.isError, true);
  assert.match(text(unknown), /nope[\s\S]*ledger[\s\S]*right/);
}

describe('codesift mcp with several roots (end to end)', () => {
  let work: string;
  before(() => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-mcp-roots-')));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('stdio: each root has its own index, selected by repository', async () => {
    const { left, right } = makeRoots(path.join(work, 'stdio'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp', '--keyword-only', '--root', `ledger=${left}`, '--root', right],
      cwd: work,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e-roots', version: '0.0.0' });
    await client.connect(transport);
    try {
      assert.match(client.getInstructions() ?? '', /several repositories/);
      await twoRoots(client, left, right);
    } finally {
      await client.close();
    }
  });

  test('http: the same over streamable HTTP', async () => {
    const { left, right } = makeRoots(path.join(work, 'http'));
    await withMcpOverHttp(
      ['--keyword-only', '--root', `ledger=${left}`, '--root', right],
      { cwd: work, token: TOKEN },
      async (client, info) => {
        assert.deepEqual(info.repositories, [
          { name: 'ledger', root: left, index: path.join(left, '.codesift', 'index.db') },
          { name: 'right', root: right, index: path.join(right, '.codesift', 'index.db') },
        ]);
        await twoRoots(client, left, right);
      },
    );
  });

  test('two roots of one name, or --index with several roots, are refused', async () => {
    const dup = path.join(work, 'dup');
    makeRoots(path.join(dup, 'one'));
    makeRoots(path.join(dup, 'two'));
    const r = await runCli(
      ['mcp', '--root', path.join(dup, 'one', 'left'), '--root', path.join(dup, 'two', 'left')],
      { cwd: work },
    );
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /two roots are named 'left'[\s\S]*name=dir/);
    const withIndex = await runCli(
      [
        'mcp',
        '--index',
        dup,
        '--root',
        path.join(dup, 'one', 'left'),
        '--root',
        path.join(dup, 'two', 'right'),
      ],
      { cwd: work },
    );
    assert.notEqual(withIndex.code, 0);
    assert.match(withIndex.stderr, /--index applies to one root/);
  });
});
