import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import type { SearchResponse } from '@codesift/search';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from './server.js';
import { FakeEngine, result, symbol } from './testing/fake-engine.js';

async function connect(engine: FakeEngine, options: Parameters<typeof createMcpServer>[1] = {}) {
  const server = createMcpServer(engine, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
  return {
    client,
    call: async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

const FILE = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n');

describe('mcp tools over an in-memory client', () => {
  let engine: FakeEngine;
  let conn: Awaited<ReturnType<typeof connect>>;
  before(async () => {
    engine = new FakeEngine({
      'src/graph.ts': 'class Graph {\n  edges = [];\n}\n',
      'big.txt': FILE,
    });
    conn = await connect(engine);
  });
  after(() => conn.close());

  test('lists the six read-only tools with descriptions, input and output schemas', async () => {
    const { tools } = await conn.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'find_references',
      'find_symbol',
      'get_file_outline',
      'get_snippet',
      'index_status',
      'search_code',
    ]);
    for (const t of tools) {
      assert.ok((t.description ?? '').length > 80, `${t.name} has a usable description`);
      assert.equal(t.outputSchema?.type, 'object', `${t.name} declares an output schema`);
      assert.equal(t.annotations?.readOnlyHint, true);
    }
    const search = tools.find((t) => t.name === 'search_code')!;
    assert.deepEqual(search.inputSchema.required, ['query']);
    const props = search.inputSchema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(props).sort(), [
      'files_only',
      'fusion',
      'language',
      'languages',
      'limit',
      'path_exclude',
      'path_include',
      'query',
      'rewrite',
      'variants',
    ]);
    assert.deepEqual(props.rewrite?.enum, ['auto', 'on', 'off']);
    assert.equal(props.variants?.maximum, 8);
    assert.equal(props.limit?.maximum, 50);
    assert.equal(props.limit?.default, 10);
    assert.equal(props.query?.maxLength, 20_000);
    assert.match(search.description ?? '', /find_symbol/);
    const snippet = tools.find((t) => t.name === 'get_snippet')!;
    assert.deepEqual(snippet.inputSchema.required?.sort(), ['path', 'start_line']);
  });

  test('the initialize result carries instructions for the model', () => {
    assert.match(conn.client.getInstructions() ?? '', /search_code/);
  });

  test('search_code maps arguments onto the engine request', async () => {
    engine.results = [result()];
    const r = await conn.call('search_code', {
      query: 'addEdge',
      limit: 5,
      language: 'TypeScript',
      languages: ['python', 'typescript'],
      path_include: ['src/**'],
      path_exclude: ['**/*.test.ts'],
      files_only: true,
      fusion: 'rrf',
      rewrite: 'off',
      variants: 0,
    });
    assert.equal(r.isError, undefined, text(r));
    const [request] = engine.callsOf('search').at(-1) as [Record<string, unknown>];
    assert.equal(request.query, 'addEdge');
    assert.equal(request.limit, 5);
    assert.equal(request.fusion, 'rrf');
    assert.equal(request.rewrite, 'off');
    assert.equal(request.variants, 0);
    assert.equal(request.collapseFiles, true);
    assert.deepEqual(request.filter, {
      languages: ['typescript', 'python'],
      include: ['src/**'],
      exclude: ['**/*.test.ts'],
    });
  });

  test('search_code defaults: limit 10, no filter, chunks not collapsed', async () => {
    await conn.call('search_code', { query: 'graph' });
    const [request] = engine.callsOf('search').at(-1) as [Record<string, unknown>];
    assert.equal(request.limit, 10);
    assert.equal(request.collapseFiles, false);
    assert.equal(request.filter, undefined);
    assert.equal(request.fusion, undefined);
    assert.equal(request.variants, undefined);
    assert.equal(request.rewrite, undefined, 'unset: the engine decides (auto)');
  });

  test('search_code returns readable text and structured results', async () => {
    engine.results = [
      result(),
      result({ path: 'src/b.ts', symbol: null, score: 0.5, startLine: 1, endLine: 2 }),
    ];
    const r = await conn.call('search_code', { query: 'addEdge' });
    const t = text(r);
    assert.match(t, /^2 results for "addEdge"/);
    assert.match(
      t,
      /1\. src\/graph\.ts:3-9 {2}Graph\.addEdge {2}\[method, typescript, score 0\.900\]/,
    );
    assert.match(t, /\n {3}4 {2} {2}addEdge\(a: string, b: string\): void \{\n {3}5 {2}/);
    assert.match(t, /2\. src\/b\.ts:1-2 {2}\[/);
    assert.match(t, /get_snippet/);
    const s = r.structuredContent as { results: Record<string, unknown>[]; total_chunks: number };
    assert.equal(s.total_chunks, 42);
    assert.deepEqual(s.results[0], {
      path: 'src/graph.ts',
      start_line: 3,
      end_line: 9,
      symbol: 'Graph.addEdge',
      kind: 'method',
      language: 'typescript',
      score: 0.9,
      snippet: result().snippet,
      snippet_start_line: 4,
      stale: false,
    });
    assert.equal(s.results[1]?.symbol, null);
    assert.doesNotMatch(t, /STALE/);
  });

  test('search_code marks a result from a file changed since indexing, in text and structure', async () => {
    engine.results = [result({ stale: true }), result({ path: 'src/b.ts', score: 0.5 })];
    const r = await conn.call('search_code', { query: 'addEdge' });
    const t = text(r);
    assert.match(t, /1\. src\/graph\.ts:3-9 .*score 0\.900\] {2}STALE\n/);
    assert.match(t, /2\. src\/b\.ts:.*score 0\.500\]\n/);
    assert.match(t, /STALE: the file changed since it was indexed/);
    const s = r.structuredContent as { results: { stale: boolean }[] };
    assert.deepEqual(
      s.results.map((x) => x.stale),
      [true, false],
    );
  });

  test('search_code with no results says what to try, and is not an error', async () => {
    engine.results = [];
    const r = await conn.call('search_code', { query: 'nothing here' });
    assert.equal(r.isError, undefined);
    assert.match(text(r), /No results for "nothing here"\.\nTry other words/);
    assert.deepEqual((r.structuredContent as { results: unknown[] }).results, []);
    const filtered = await conn.call('search_code', { query: 'x', path_include: ['lib/**'] });
    assert.match(text(filtered), /removing the language or path filters/);
  });

  test('search_code says when matches were refused for lack of evidence', async () => {
    engine.results = [];
    // Only the part the tool reads; the engine's own tests cover the whole plan.
    engine.plan = {
      evidence: {
        enabled: true,
        ownTerms: ['frobnicatewidget'],
        outcome: { kind: 'none', similarity: null, floor: null },
      },
    } as unknown as SearchResponse['plan'];
    try {
      const r = await conn.call('search_code', { query: 'FrobnicateWidget' });
      assert.match(
        text(r),
        /No results for "FrobnicateWidget"\.\nNone of its own words or identifiers is in the index \(matches of identifier parts or synonyms alone do not count\)\.\nTry other words/,
      );
    } finally {
      engine.plan = undefined;
    }
  });

  test('search_code reports degraded backends', async () => {
    engine.results = [result()];
    engine.degraded = ['vector: timeout'];
    const r = await conn.call('search_code', { query: 'graph' });
    engine.degraded = [];
    assert.match(text(r), /partial results.*vector: timeout/);
    assert.deepEqual((r.structuredContent as { degraded: string[] }).degraded, ['vector: timeout']);
  });

  test('search_code rejects malformed arguments with the validation error', async () => {
    const before = engine.callsOf('search').length;
    for (const args of [
      {},
      { query: '' },
      { query: 'x'.repeat(20_001) },
      { query: 'x', limit: 0 },
      { query: 'x', limit: 51 },
      { query: 'x', limit: 2.5 },
      { query: 'x', fusion: 'max' },
      { query: 'x', path_include: 'src/**' },
      { query: 42 },
    ]) {
      const r = await conn.call('search_code', args);
      assert.equal(r.isError, true, JSON.stringify(args).slice(0, 80));
      assert.match(text(r), /Input validation error/);
    }
    assert.equal(engine.callsOf('search').length, before, 'the engine never saw bad input');
  });

  test('engine errors become error results with message and hint', async () => {
    engine.fail.search = new CodesiftError('INDEX_CORRUPT', 'the index is damaged', {
      hint: "run 'codesift index --rebuild <dir>'",
    });
    const r = await conn.call('search_code', { query: 'graph' });
    assert.equal(r.isError, true);
    assert.equal(
      text(r),
      "Error: the index is damaged (INDEX_CORRUPT)\nHint: run 'codesift index --rebuild <dir>'",
    );

    engine.fail.status = new TypeError('boom');
    const s = await conn.call('index_status');
    assert.equal(s.isError, true);
    assert.match(text(s), /internal error: boom/);
  });

  test('find_symbol returns definitions with path, range, signature and doc', async () => {
    engine.symbols = [
      symbol(),
      symbol({ id: 's2', name: 'Graph', qualifiedName: 'Graph', kind: 'class' }),
    ];
    const r = await conn.call('find_symbol', { name: 'addEdge', kind: 'method', limit: 3 });
    assert.deepEqual(engine.callsOf('lookupSymbol').at(-1), [
      'addEdge',
      { kind: 'method', limit: 3 },
    ]);
    const t = text(r);
    assert.match(t, /1 definition of method named "addEdge":/);
    assert.match(t, /src\/graph\.ts:3-9 {2}Graph\.addEdge {2}\[method, typescript\]/);
    assert.match(t, /addEdge\(a: string, b: string\): void/);
    assert.match(t, /doc: Adds an edge/);
    const s = r.structuredContent as { symbols: Record<string, unknown>[] };
    assert.deepEqual(s.symbols[0], {
      name: 'addEdge',
      qualified_name: 'Graph.addEdge',
      kind: 'method',
      path: 'src/graph.ts',
      language: 'typescript',
      start_line: 3,
      end_line: 9,
      parent: 'Graph',
      signature: 'addEdge(a: string, b: string): void',
      doc: 'Adds an edge from a to b.',
    });
  });

  test('find_symbol with no match suggests indexed names', async () => {
    engine.vocab = [
      { name: 'addEdges', count: 3 },
      { name: 'addNode', count: 1 },
      { name: 'removeEdge', count: 2 },
    ];
    const r = await conn.call('find_symbol', { name: 'addEdgeX' });
    assert.equal(r.isError, undefined);
    assert.match(text(r), /No symbol named "addEdgeX"/);
    assert.match(text(r), /Similar indexed names: addEdges\./);
    assert.deepEqual((r.structuredContent as { suggestions: string[] }).suggestions, ['addEdges']);
    const shorter = await conn.call('find_symbol', { name: 'addZebra' });
    assert.deepEqual((shorter.structuredContent as { suggestions: string[] }).suggestions, [
      'addEdges',
      'addNode',
    ]);
  });

  test('find_symbol validates its arguments', async () => {
    for (const args of [{}, { name: '' }, { name: 'x', kind: 'widget' }, { name: 'x', limit: 0 }]) {
      const r = await conn.call('find_symbol', args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(text(r), /Input validation error/);
    }
  });

  test('get_snippet allows ordinary dotfiles and key-like names that are not secrets', async () => {
    for (const path of ['.env.example', 'src/keyboard.ts', 'id_rsa.pub', '.github/ci.yml']) {
      const r = await conn.call('get_snippet', { path, start_line: 1 });
      assert.match(text(r), /file not in the index/, path);
    }
  });

  test('get_snippet returns numbered lines', async () => {
    const r = await conn.call('get_snippet', {
      path: './src//graph.ts',
      start_line: 1,
      end_line: 3,
    });
    assert.equal(r.isError, undefined, text(r));
    assert.deepEqual(engine.callsOf('getSnippet').at(-1), ['src/graph.ts', 1, 3]);
    assert.equal(
      text(r),
      'src/graph.ts:1-3 (typescript)\n1  class Graph {\n2    edges = [];\n3  }',
    );
    assert.deepEqual(r.structuredContent, {
      path: 'src/graph.ts',
      start_line: 1,
      end_line: 3,
      language: 'typescript',
      text: 'class Graph {\n  edges = [];\n}',
      truncated: false,
      stale: false,
    });
  });

  test('get_snippet says when the file changed since it was indexed, and serves no lines', async () => {
    engine.staleFiles.add('src/graph.ts');
    try {
      const r = await conn.call('get_snippet', {
        path: 'src/graph.ts',
        start_line: 1,
        end_line: 1,
      });
      assert.match(
        text(r),
        /^src\/graph\.ts:1-1 \(typescript\)\n\[STALE: the file changed since it was indexed;/,
      );
      assert.doesNotMatch(text(r), /class Graph/);
      assert.equal((r.structuredContent as { stale: boolean }).stale, true);
      assert.equal((r.structuredContent as { text: string }).text, '');
    } finally {
      engine.staleFiles.delete('src/graph.ts');
    }
  });

  test('get_snippet cuts long ranges at 400 lines and says where to go on', async () => {
    const r = await conn.call('get_snippet', { path: 'big.txt', start_line: 10, end_line: 2000 });
    assert.deepEqual(engine.callsOf('getSnippet').at(-1), ['big.txt', 10, 409]);
    const s = r.structuredContent as { end_line: number; truncated: boolean };
    assert.equal(s.end_line, 409);
    assert.equal(s.truncated, true);
    assert.match(text(r), /cut at 400 lines; continue with start_line 410/);
    assert.match(text(r), /\n 10 {2}line 10\n/);

    const dflt = await conn.call('get_snippet', { path: 'big.txt', start_line: 5 });
    assert.equal((dflt.structuredContent as { end_line: number }).end_line, 64);
  });

  test('get_snippet refuses escapes before touching the engine', async () => {
    const before = engine.callsOf('getSnippet').length;
    for (const path of [
      '../etc/passwd',
      '../../../../etc/passwd',
      'src/../../secret',
      '..',
      '/etc/passwd',
      '\\\\server\\share',
      'C:\\Windows\\win.ini',
      'c:/x',
      '..\\..\\x',
      '~/.ssh/id_rsa',
      'src/\0graph.ts',
      '.',
      './/',
      '.git/config',
      'sub/.git/HEAD',
      '.codesift/index.db',
      '.env',
      'config/.env.production',
      'deploy/tls.key',
      'certs/server.pem',
      'home/.ssh/id_ed25519',
      'credentials.json',
    ]) {
      const r = await conn.call('get_snippet', { path, start_line: 1, end_line: 5 });
      assert.equal(r.isError, true, path);
      assert.match(text(r), /^Error: cannot read /, path);
    }
    assert.equal(engine.callsOf('getSnippet').length, before, 'no escape reached the engine');
  });

  test('get_snippet: missing files and bad ranges are error results', async () => {
    const missing = await conn.call('get_snippet', {
      path: 'src/nope.ts',
      start_line: 1,
      end_line: 2,
    });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /file not in the index: src\/nope\.ts \(INVALID_ARGUMENT\)\nHint:/);

    engine.fail.getSnippet = new CodesiftError(
      'PATH_OUTSIDE_ROOT',
      'path "x" is outside the indexed root',
    );
    const outside = await conn.call('get_snippet', { path: 'link/x', start_line: 1 });
    assert.equal(outside.isError, true);
    assert.match(text(outside), /outside the indexed root \(PATH_OUTSIDE_ROOT\)/);

    const reversed = await conn.call('get_snippet', {
      path: 'big.txt',
      start_line: 9,
      end_line: 3,
    });
    assert.equal(reversed.isError, true);
    assert.match(text(reversed), /end_line \(3\) is before start_line \(9\)/);

    for (const args of [
      { path: 'big.txt' },
      { path: 'big.txt', start_line: 0 },
      { start_line: 1 },
    ]) {
      const r = await conn.call('get_snippet', args);
      assert.equal(r.isError, true);
      assert.match(text(r), /Input validation error/);
    }
  });

  test('index_status describes the index', async () => {
    const r = await conn.call('index_status');
    assert.deepEqual(r.structuredContent, {
      root: '/repo',
      repositories: [],
      index_path: '/repo/.codesift/index.db',
      files: 2,
      chunks: 10,
      symbols: engine.symbols.length,
      vectors: 0,
      embedder: null,
      dimensions: null,
      updated_at: '2025-01-02T03:04:05.000Z',
      bytes: 4096,
      indexed: true,
      job: null,
      watching: null,
    });
    assert.match(text(r), /root: \/repo/);
    assert.match(text(r), /embedder: none \(keyword search only\)/);
    assert.match(text(r), /last update: 2025-01-02T03:04:05\.000Z/);
  });

  test("get_file_outline nests a file's symbols by line range; refuses unsafe and unknown paths", async () => {
    engine.symbols = [
      symbol({
        name: 'Graph',
        qualifiedName: 'Graph',
        kind: 'class',
        startLine: 1,
        endLine: 3,
        parent: null,
        signature: 'class Graph',
      }),
      symbol({ startLine: 2, endLine: 2 }),
    ];
    const r = await conn.call('get_file_outline', { path: './src//graph.ts' });
    assert.equal(r.isError, undefined, text(r));
    assert.equal(
      text(r).split('\n').slice(0, 3).join('\n'),
      'src/graph.ts: 2 symbols\n  1-3  class Graph  class Graph\n    2-2  method addEdge  addEdge(a: string, b: string): void',
    );
    const symbols = (r.structuredContent as { symbols: { name: string; parent: string | null }[] })
      .symbols;
    assert.deepEqual(
      symbols.map((s) => [s.name, s.parent]),
      [
        ['Graph', null],
        ['addEdge', 'Graph'],
      ],
    );
    const none = await conn.call('get_file_outline', { path: 'big.txt' });
    assert.equal(none.isError, undefined);
    assert.match(text(none), /defines no symbols/);
    const unknown = await conn.call('get_file_outline', { path: 'src/nope.ts' });
    assert.equal(unknown.isError, true);
    assert.match(text(unknown), /file not in the index/);
    const outside = await conn.call('get_file_outline', { path: '../etc/passwd' });
    assert.equal(outside.isError, true);
    assert.match(text(outside), /may not contain '\.\.'/);
  });

  test('get_file_outline says so when the engine cannot list symbols (a remote one)', async () => {
    const remote = new FakeEngine({ 'src/graph.ts': 'x\n' });
    const bare = Object.assign(Object.create(remote) as FakeEngine, { fileSymbols: undefined });
    const c = await connect(bare);
    try {
      const r = await c.call('get_file_outline', { path: 'src/graph.ts' });
      assert.equal(r.isError, true);
      assert.match(text(r), /cannot list a file's symbols/);
    } finally {
      await c.close();
    }
  });

  test('maxSnippetLines option lowers the cut', async () => {
    const small = await connect(engine, { maxSnippetLines: 5 });
    try {
      const r = await small.call('get_snippet', { path: 'big.txt', start_line: 1, end_line: 100 });
      assert.equal((r.structuredContent as { end_line: number }).end_line, 5);
    } finally {
      await small.close();
    }
  });
});
