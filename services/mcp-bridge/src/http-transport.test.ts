import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpServerHandle, serveHttp } from './http-transport.js';
import { FakeEngine, result } from './testing/fake-engine.js';

const TOKEN = 'test-token-0123456789abcdef';

async function connectClient(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client;
}

/** A raw request, to see status codes and headers the SDK client hides. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'POST', headers: options.headers },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
});
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

describe('streamable HTTP transport', () => {
  let engine: FakeEngine;
  let http: HttpServerHandle;
  before(async () => {
    engine = new FakeEngine({ 'src/graph.ts': 'class Graph {}\n' });
    engine.results = [result()];
    http = await serveHttp(engine, { host: '127.0.0.1', port: 0, token: TOKEN });
  });
  after(() => http.close());

  test('reports the URL it listens on', () => {
    assert.match(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(http.port > 0);
  });

  test('a client with the token lists and calls tools, over several requests', async () => {
    const client = await connectClient(http.url, { Authorization: `Bearer ${TOKEN}` });
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, 6);
      const r = (await client.callTool({
        name: 'search_code',
        arguments: { query: 'addEdge' },
      })) as CallToolResult;
      assert.equal(r.isError, undefined);
      assert.equal((r.structuredContent as { results: unknown[] }).results.length, 1);
      const s = (await client.callTool({ name: 'index_status', arguments: {} })) as CallToolResult;
      assert.equal((s.structuredContent as { root: string }).root, '/repo');
    } finally {
      await client.close();
    }
  });

  test('no token: 401 with WWW-Authenticate, and the SDK client fails to connect', async () => {
    const r = await raw(http.url, { headers: MCP_HEADERS, body: INIT });
    assert.equal(r.status, 401);
    assert.equal(r.headers['www-authenticate'], 'Bearer realm="codesift"');
    assert.match(JSON.parse(r.body).error.message, /unauthorized/);
    await assert.rejects(connectClient(http.url, {}));
  });

  test('wrong token: 401 invalid_token', async () => {
    for (const auth of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN]) {
      const r = await raw(http.url, {
        headers: { ...MCP_HEADERS, authorization: auth },
        body: INIT,
      });
      assert.equal(r.status, 401, auth);
      assert.equal(r.headers['www-authenticate'], 'Bearer realm="codesift", error="invalid_token"');
    }
  });

  test('stateless: GET and DELETE are 405, other paths 404, /healthz open', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const get = await raw(http.url, {
      method: 'GET',
      headers: { ...auth, accept: 'text/event-stream' },
    });
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    assert.equal((await raw(http.url, { method: 'DELETE', headers: auth })).status, 405);
    assert.equal((await raw(http.url.replace('/mcp', '/other'), { headers: auth })).status, 404);
    const health = await raw(http.url.replace('/mcp', '/healthz'), { method: 'GET' });
    assert.equal(health.status, 200);
  });

  test('on loopback, a foreign Host or Origin is refused (DNS rebinding)', async () => {
    const auth = { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` };
    const host = await raw(http.url, {
      headers: { ...auth, host: 'evil.example.com' },
      body: INIT,
    });
    assert.equal(host.status, 403);
    const origin = await raw(http.url, {
      headers: { ...auth, origin: 'http://evil.example.com' },
      body: INIT,
    });
    assert.equal(origin.status, 403);
    const ok = await raw(http.url, {
      headers: { ...auth, origin: 'http://localhost:3000' },
      body: INIT,
    });
    assert.equal(ok.status, 200);
  });

  test('malformed JSON gets a JSON-RPC parse error, not a crash', async () => {
    const r = await raw(http.url, {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: '{not json',
    });
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.body).error.code, -32700);
  });

  test('without a token (insecure loopback mode) requests need no header', async () => {
    const open = await serveHttp(engine, { host: '127.0.0.1', port: 0, token: null });
    try {
      const client = await connectClient(open.url, {});
      const { tools } = await client.listTools();
      assert.equal(tools.length, 6);
      await client.close();
    } finally {
      await open.close();
    }
  });

  test('close() stops listening even with a keep-alive client connected', async () => {
    const other = await serveHttp(engine, { host: '127.0.0.1', port: 0, token: TOKEN });
    const client = await connectClient(other.url, { Authorization: `Bearer ${TOKEN}` });
    await client.listTools();
    await other.close();
    await assert.rejects(raw(other.url, { headers: MCP_HEADERS, body: INIT }));
    await client.close().catch(() => {});
  });
});
