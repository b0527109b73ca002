import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { connectRemoteEngine } from '@codesift/grpc';
import { openLocalEngine, type SearchEngine, type SearchResponse } from '@codesift/search';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliBin, collect, type RunResult, runCli, startCli } from '../support/cli.js';
import { freePort } from '../support/processes.js';
import { GRAPH_TS, writeTree } from '../support/tree.js';

const GRPC_TOKEN = 'e2e-grpc-token-3c9a41f2d7b0';
const HTTP_TOKEN = 'e2e-http-token-8b21e7c44a9f';

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, NO_COLOR: '1', CODESIFT_TOKEN: '', ...extra };
}

/** Resolves with the first stdout line of a child, parsed as JSON. */
function jsonLine<T>(child: ChildProcess, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`no JSON line in ${timeoutMs} ms\n${err}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(JSON.parse(out.slice(0, nl)) as T);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited early (${code}): ${err}`));
    });
  });
}

async function mcpOverStdio(
  args: string[],
  cwd: string,
): Promise<{ client: Client; log: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliBin, 'mcp', ...args],
    cwd,
    env: childEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  const client = new Client({ name: 'e2e-remote', version: '0.0.0' });
  await client.connect(transport);
  return { client, log: () => stderr };
}

/** Every tool call the comparison makes: the read-only tools, hits, misses and errors. */
const CALLS: [string, Record<string, unknown>][] = [
  ['search_code', { query: 'insertEdgeBetween' }],
  ['search_code', { query: 'reconcileLedgerBalances total' }],
  ['search_code', { query: 'where are edges added to the graph?', limit: 3 }],
  ['search_code', { query: 'parse config settings file', files_only: true }],
  ['search_code', { query: 'store a value', fusion: 'rrf', language: 'go' }],
  ['search_code', { query: 'Graph', path_include: ['src/**'], path_exclude: ['**/*.py'] }],
  ['search_code', { query: 'insertEdgeBetween', language: 'python' }],
  ['find_symbol', { name: 'parse_config' }],
  ['find_symbol', { name: 'Graph', kind: 'class' }],
  ['find_symbol', { name: 'insertEdgeBetwen' }],
  ['find_references', { name: 'parse_config' }],
  ['get_snippet', { path: 'src/graph.ts', start_line: 6, end_line: 8 }],
  ['get_snippet', { path: 'src/graph.ts', start_line: 2 }],
  ['get_snippet', { path: 'src/long.txt', start_line: 1, end_line: 1000 }],
  ['get_snippet', { path: 'src/graph.ts', start_line: 500, end_line: 600 }],
  ['get_snippet', { path: 'src/nope.ts', start_line: 1, end_line: 2 }],
  ['get_snippet', { path: '../outside-secret.txt', start_line: 1, end_line: 1 }],
  ['get_snippet', { path: '.env', start_line: 1, end_line: 1 }],
  ['index_status', {}],
];

/**
 * `codesift mcp --remote` against `codesift serve`, both real child
 * processes, driven by the official MCP client: every tool must answer what
 * `codesift mcp --index` answers on the same index.
 */
describe('codesift mcp --remote (end to end)', () => {
  let work: string;
  let root: string;
  let indexDir: string;
  let serve: ChildProcess;
  let served: Promise<RunResult>;
  let address: string;

  before(async () => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-mcp-remote-e2e-')));
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
      // A long function whose matching line sits deep inside: the snippet starts past the chunk.
      'src/pipeline.ts': [
        'export function runPipeline(input: number[]): number {',
        ...Array.from({ length: 30 }, (_, i) => `  const step${i} = input.length + ${i};`),
        '  const total = reconcileLedgerBalances(input);',
        ...Array.from({ length: 10 }, (_, i) => `  const tail${i} = total * ${i};`),
        '  return total;',
        '}',
        '',
        'function reconcileLedgerBalances(xs: number[]): number {',
        '  return xs.reduce((a, b) => a + b, 0);',
        '}',
        '',
      ].join('\n'),
      'src/long.txt': Array.from({ length: 700 }, (_, i) => `row ${i + 1}`).join('\n'),
      'README.md': '# Demo\n\nA small repository for the remote MCP test.\n',
      '.env': 'SECRET=1\n',
    });
    writeFileSync(path.join(work, 'outside-secret.txt'), 'TOP SECRET\n');
    const indexed = await runCli(['index', root, '--json', '--no-vectors', '-q']);
    assert.equal(indexed.code, 0, indexed.stderr);

    serve = startCli(['serve', '--port', '0', '--json', '--index', indexDir], {
      cwd: work,
      env: { CODESIFT_TOKEN: GRPC_TOKEN },
    });
    const ready = jsonLine<{ address: string }>(serve, 60_000);
    served = collect(serve, 300_000);
    ({ address } = await ready);
  });
  after(async () => {
    if (serve.exitCode === null) serve.kill('SIGTERM');
    await served.catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  });

  test('stdio: every tool answers what the local MCP server answers', async () => {
    const local = await mcpOverStdio(['--index', indexDir], work);
    const remote = await mcpOverStdio(['--remote', address, '--token', GRPC_TOKEN], work);
    try {
      const [localTools, remoteTools] = await Promise.all([
        local.client.listTools(),
        remote.client.listTools(),
      ]);
      // A remote index is built elsewhere: no index_codebase or clear_index there.
      const readTools = localTools.tools.filter(
        (t) => t.name !== 'index_codebase' && t.name !== 'clear_index',
      );
      assert.equal(readTools.length, 6);
      assert.deepEqual(remoteTools, { ...localTools, tools: readTools });
      let errors = 0;
      for (const [name, args] of CALLS) {
        let want = (await local.client.callTool({ name, arguments: args })) as CallToolResult;
        const got = (await remote.client.callTool({ name, arguments: args })) as CallToolResult;
        // Only the local server knows whether it watches the root; a remote one says null.
        if (name === 'index_status') want = withoutWatch(want);
        assert.deepEqual(got, want, `${name} ${JSON.stringify(args)}`);
        if (want.isError) errors++;
      }
      // The comparison covers errors too: not indexed, outside the root, secrets.
      assert.equal(errors, 3);
      const search = (await remote.client.callTool({
        name: 'search_code',
        arguments: { query: 'insertEdgeBetween' },
      })) as CallToolResult;
      const top = (search.structuredContent as { results: { path: string }[] }).results[0];
      assert.equal(top?.path, 'src/graph.ts', 'a real answer, not two equal failures');
      const deep = (await remote.client.callTool({
        name: 'search_code',
        arguments: { query: 'reconcileLedgerBalances total' },
      })) as CallToolResult;
      type Hit = { path: string; start_line: number; snippet_start_line: number };
      const hits = (deep.structuredContent as { results: Hit[] }).results;
      assert.ok(
        hits.some((h) => h.snippet_start_line > h.start_line),
        'a snippet starting inside its chunk is covered',
      );
      const outside = (await remote.client.callTool({
        name: 'get_snippet',
        arguments: { path: '../outside-secret.txt', start_line: 1, end_line: 1 },
      })) as CallToolResult;
      const outsideText = outside.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      assert.doesNotMatch(outsideText, /TOP SECRET/);
    } finally {
      await Promise.all([local.client.close(), remote.client.close()]);
    }
    assert.match(remote.log(), new RegExp(`serving gRPC ${address} on stdio`));
  });

  test('the remote engine answers exactly what the local engine answers', async () => {
    const local = await openLocalEngine({
      indexPath: path.join(indexDir, 'index.db'),
      embedder: null,
    });
    const remote: SearchEngine = await connectRemoteEngine(address, {
      token: GRPC_TOKEN,
      check: true,
    });
    // Timings differ per call, and the plan travels only when explaining.
    const strip = ({ timings: _t, plan: _p, ...rest }: SearchResponse) => rest;
    try {
      for (const request of [
        { query: 'insertEdgeBetween', limit: 5 },
        { query: 'reconcileLedgerBalances total' },
        { query: 'where is the config parsed?', collapseFiles: true },
        { query: 'Put', fusion: 'rrf' as const, filter: { languages: ['go'] } },
      ]) {
        const want = strip(await local.search({ ...request }));
        const got = strip(await remote.search({ ...request }));
        assert.ok(want.results.length > 0, request.query);
        assert.deepEqual(got, want, request.query);
      }
      assert.deepEqual(
        await remote.lookupSymbol('parse_config'),
        await local.lookupSymbol('parse_config'),
      );
      assert.deepEqual(
        await remote.lookupSymbol('insertEdge', { kind: 'method', limit: 3 }),
        await local.lookupSymbol('insertEdge', { kind: 'method', limit: 3 }),
      );
      assert.deepEqual(
        await remote.vocabulary({ limit: 50 }),
        await local.vocabulary({ limit: 50 }),
      );
      assert.deepEqual(
        await remote.vocabulary({ prefix: 'in' }),
        await local.vocabulary({ prefix: 'in' }),
      );
      assert.deepEqual(await remote.status(), await local.status());
      for (const [start, end] of [
        [1, 3],
        [6, 600],
        [0, 0],
        [9, 2],
      ] as const) {
        assert.deepEqual(
          await remote.getSnippet('src/graph.ts', start, end),
          await local.getSnippet('src/graph.ts', start, end),
        );
      }
      for (const file of ['../outside-secret.txt', '.env', 'src/nope.ts']) {
        const want = await local.getSnippet(file, 1, 1).catch((e: unknown) => e);
        const got = await remote.getSnippet(file, 1, 1).catch((e: unknown) => e);
        assert.ok(want instanceof CodesiftError && got instanceof CodesiftError, file);
        assert.deepEqual([got.code, got.message, got.hint], [want.code, want.message, want.hint]);
      }
    } finally {
      await Promise.all([local.close(), remote.close()]);
    }
  });

  test('http: --remote behind a bearer-protected MCP endpoint', async () => {
    const child = startCli(
      [
        'mcp',
        '--remote',
        address,
        '--remote-token',
        GRPC_TOKEN,
        '--http',
        '--port',
        '0',
        '--token',
        HTTP_TOKEN,
        '--json',
      ],
      { cwd: work, env: { CODESIFT_TOKEN: '' } },
    );
    const exited = collect(child, 120_000);
    try {
      const info = await jsonLine<{ url: string }>(child, 60_000);
      const client = new Client({ name: 'e2e-http', version: '0.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(info.url), {
          requestInit: { headers: { Authorization: `Bearer ${HTTP_TOKEN}` } },
        }),
      );
      const r = (await client.callTool({ name: 'index_status', arguments: {} })) as CallToolResult;
      assert.equal(r.isError, undefined);
      assert.equal((r.structuredContent as { root: string }).root, root);
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal((await exited).code, 0);
  });

  test('usage errors, an unreachable server and a wrong token fail clearly', async () => {
    const both = await runCli(['mcp', '--remote', address, '--index', indexDir]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--remote and --index are mutually exclusive/);
    const empty = await runCli(['mcp', '--remote', ' ']);
    assert.equal(empty.code, 2);
    const stray = await runCli(['mcp', '--remote-token', 'x', '--index', indexDir]);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /--remote-token only applies with --remote/);

    const closed = `127.0.0.1:${await freePort()}`;
    const down = await runCli(['mcp', '--remote', closed], { env: { CODESIFT_TOKEN: '' } });
    assert.equal(down.code, 1);
    assert.match(down.stderr, new RegExp(`cannot reach the query service at ${closed}`));

    const wrong = await runCli(['mcp', '--remote', address, '--token', 'nope'], {
      env: { CODESIFT_TOKEN: '' },
    });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, new RegExp(`${address} refused the call: invalid token`));

    const help = await runCli(['mcp', '--help']);
    assert.match(help.stdout, /--remote <host:port>/);
  });
});

/** index_status as a server that does not watch answers it: no watch line, `watching` null. */
function withoutWatch(r: CallToolResult): CallToolResult {
  const content = r.content.map((c) =>
    c.type === 'text' ? { ...c, text: c.text.replace(/\nwatch: (on|off) \([^)]*\)$/, '') } : c,
  );
  return { ...r, content, structuredContent: { ...r.structuredContent, watching: null } };
}
