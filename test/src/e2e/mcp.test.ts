import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliBin, collect, firstLine, LOCAL_MCP_TOOLS, runCli, startCli } from '../support/cli.js';
import { GRAPH_TS, writeTree } from '../support/tree.js';

const TOKEN = 'e2e-token-5f0c1d9a7b3e4a21';

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

/** `codesift mcp` as an agent runs it: the real CLI in a child process. */
describe('codesift mcp (end to end)', () => {
  let work: string;
  let root: string;
  let indexDir: string;
  before(async () => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-mcp-e2e-')));
    root = path.join(work, 'repo');
    indexDir = path.join(root, '.codesift');
    writeTree(root, {
      'src/graph.ts': GRAPH_TS,
      'src/config_loader.py': [
        'import json',
        '',
        '',
        'def parse_config(path):',
        '    """Reads the JSON settings file."""',
        '    with open(path) as f:',
        '        return json.load(f)',
        '',
      ].join('\n'),
      'src/store.go': 'package store\n\n// Put stores a value.\nfunc Put(key, value string) {}\n',
      'README.md': '# Demo\n\nA small repository for the MCP test.\n',
    });
    // Readable, but outside the indexed root: get_snippet must never serve it.
    writeFileSync(path.join(work, 'outside-secret.txt'), 'TOP SECRET\n');
    const r = await runCli(['index', root, '--json', '--no-vectors', '-q']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).filesIndexed, 4);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('stdio: a real child process answers every tool', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp', '--index', indexDir],
      cwd: work,
      env: childEnv(),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => {
      stderr += d;
    });
    const client = new Client({ name: 'e2e', version: '0.0.0' });
    await client.connect(transport);
    const pid = transport.pid;
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), LOCAL_MCP_TOOLS);

      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;

      const search = await call('search_code', { query: 'insertEdgeBetween' });
      assert.equal(search.isError, undefined, text(search));
      const results = (
        search.structuredContent as { results: { path: string; start_line: number }[] }
      ).results;
      assert.equal(results[0]?.path, 'src/graph.ts', text(search));
      assert.match(text(search), /^1\. src\/graph\.ts:\d+-\d+/m);

      const filtered = await call('search_code', {
        query: 'insertEdgeBetween',
        language: 'python',
      });
      assert.deepEqual((filtered.structuredContent as { results: unknown[] }).results, []);
      assert.match(text(filtered), /No results/);
      // A language alias is its language; an unknown one is refused with the known ones.
      const alias = await call('search_code', { query: 'insertEdgeBetween', language: 'ts' });
      assert.equal(
        (alias.structuredContent as { results: { path: string }[] }).results[0]?.path,
        'src/graph.ts',
        text(alias),
      );
      const unknown = await call('search_code', {
        query: 'insertEdgeBetween',
        language: 'golang2',
      });
      assert.equal(unknown.isError, true);
      assert.match(
        text(unknown),
        /unknown language 'golang2'; known languages: .*\bgo\b.*typescript/,
      );

      const symbol = await call('find_symbol', { name: 'parse_config' });
      const symbols = (symbol.structuredContent as { symbols: Record<string, unknown>[] }).symbols;
      assert.equal(symbols.length, 1, text(symbol));
      assert.equal(symbols[0]?.path, 'src/config_loader.py');
      assert.equal(symbols[0]?.start_line, 4);
      assert.match(String(symbols[0]?.signature), /def parse_config\(path\)/);
      assert.match(String(symbols[0]?.doc), /Reads the JSON settings file/);

      const snippet = await call('get_snippet', {
        path: 'src/graph.ts',
        start_line: 6,
        end_line: 8,
      });
      assert.equal(snippet.isError, undefined, text(snippet));
      assert.equal(
        text(snippet),
        'src/graph.ts:6-8 (typescript)\n' +
          '6    insertEdgeBetween(from: string, to: string): void {\n' +
          '7      this.edges.push([from, to]);\n' +
          '8    }',
      );

      for (const outside of [
        '../outside-secret.txt',
        'src/../../outside-secret.txt',
        path.join(work, 'outside-secret.txt'),
        '.codesift/index.db',
      ]) {
        const r = await call('get_snippet', { path: outside, start_line: 1, end_line: 1 });
        assert.equal(r.isError, true, outside);
        assert.doesNotMatch(text(r), /TOP SECRET/);
      }
      const missing = await call('get_snippet', {
        path: 'src/nope.ts',
        start_line: 1,
        end_line: 2,
      });
      assert.equal(missing.isError, true);
      assert.match(text(missing), /is not an indexed file/);

      const bad = await call('search_code', { query: 'x', limit: 500 });
      assert.equal(bad.isError, true);
      assert.match(text(bad), /Input validation error/);

      const status = await call('index_status', {});
      const s = status.structuredContent as Record<string, unknown>;
      assert.equal(s.root, root);
      assert.equal(s.files, 4);
      assert.ok((s.symbols as number) >= 3);
      assert.equal(s.vectors, 0);
      assert.equal(s.embedder, null);
    } finally {
      await client.close();
    }
    assert.ok(pid);
    await waitForExit(pid);
    assert.match(stderr, /serving .*index\.db on stdio/);
  });

  test('stdio: finds the index upwards from the working directory', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp'],
      cwd: path.join(root, 'src'),
      env: childEnv(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e', version: '0.0.0' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: 'index_status', arguments: {} })) as CallToolResult;
      assert.equal((r.structuredContent as { root: string }).root, root);
    } finally {
      await client.close();
    }
  });

  test('http: bearer token required, tools answer with it, SIGTERM stops it', async () => {
    const child = startCli(
      ['mcp', '--http', '--port', '0', '--token', TOKEN, '--json', '--index', indexDir],
      { cwd: work, env: { CODESIFT_TOKEN: '' } },
    );
    try {
      const info = JSON.parse(await firstLine(child, 60_000)) as { url: string; port: number };
      assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      assert.ok(info.port > 0);

      const client = new Client({ name: 'e2e-http', version: '0.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(info.url), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
      const r = (await client.callTool({
        name: 'search_code',
        arguments: { query: 'parse_config', files_only: true },
      })) as CallToolResult;
      assert.equal(
        (r.structuredContent as { results: { path: string }[] }).results[0]?.path,
        'src/config_loader.py',
      );
      await client.close();

      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'x', version: '0' },
        },
      });
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      const anonymous = await fetch(info.url, { method: 'POST', headers, body: init });
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer /);
      const wrong = await fetch(info.url, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${TOKEN}0` },
        body: init,
      });
      assert.equal(wrong.status, 401);
      assert.match(wrong.headers.get('www-authenticate') ?? '', /invalid_token/);

      const exited = collect(child, 30_000);
      child.kill('SIGTERM');
      const done = await exited;
      assert.equal(done.code, 0, done.stderr);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  test('http: refuses to start without a token, and rejects stdio-only misuse', async () => {
    const noToken = await runCli(['mcp', '--http', '--port', '0', '--index', indexDir], {
      env: { CODESIFT_TOKEN: '' },
    });
    assert.equal(noToken.code, 1);
    assert.match(noToken.stderr, /needs a bearer token/);
    assert.match(noToken.stderr, /hint:/);

    const notLoopback = await runCli(
      ['mcp', '--http', '--host', '0.0.0.0', '--insecure-no-auth', '--index', indexDir],
      { env: { CODESIFT_TOKEN: '' } },
    );
    assert.equal(notLoopback.code, 1);
    assert.match(notLoopback.stderr, /not a loopback address/);

    const jsonOnStdio = await runCli(['mcp', '--json', '--index', indexDir]);
    assert.equal(jsonOnStdio.code, 2);
    assert.match(jsonOnStdio.stderr, /--json needs --http/);

    const remoteAutoIndex = await runCli(['mcp', '--remote', '127.0.0.1:1', '--auto-index']);
    assert.equal(remoteAutoIndex.code, 2);
    assert.match(remoteAutoIndex.stderr, /--auto-index does not apply with --remote/);

    const badRoot = await runCli(['mcp', '--root', path.join(work, 'nope')]);
    assert.equal(badRoot.code, 1);
    assert.match(badRoot.stderr, /directory not found/);
  });
});

async function waitForExit(pid: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`codesift mcp (pid ${pid}) still runs after the client closed`);
}
