// MCP tool calls as spans, exported by a real OpenTelemetry SDK to the
// loopback OTLP receiver: each call is one span named for its tool, and
// work the engine does inside it (its own spans) nests under it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTelemetry, type Telemetry } from '@codesift/telemetry';
import { type OtlpReceiver, startOtlpReceiver } from '@codesift/telemetry/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { trace } from '@opentelemetry/api';
import { createMcpServer } from './server.js';
import { FakeEngine } from './testing/fake-engine.js';

let receiver: OtlpReceiver;
let telemetry: Telemetry;

before(async () => {
  receiver = await startOtlpReceiver();
  telemetry = await startTelemetry({
    serviceName: 'codesift-mcp-test',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
  });
});
after(async () => {
  await telemetry?.shutdown();
  await receiver?.close();
});

test('each tool call is a span named for its tool; the engine’s work nests under it', async () => {
  const engine = new FakeEngine({ 'src/graph.ts': 'class Graph {}\n' });
  const search = engine.search.bind(engine);
  engine.search = (request) =>
    trace.getTracer('test').startActiveSpan('engine.work', async (span) => {
      try {
        return await search(request);
      } finally {
        span.end();
      }
    });
  const server = createMcpServer(engine);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
  try {
    await client.callTool({ name: 'search_code', arguments: { query: 'Graph' } });
    await client.callTool({ name: 'index_status', arguments: {} });
  } finally {
    await client.close();
    await server.close();
  }
  await telemetry.flush();
  const spans = await receiver.waitFor((all) =>
    ['mcp.tool search_code', 'mcp.tool index_status', 'engine.work'].every((n) =>
      all.some((s) => s.name === n),
    ),
  );
  const tool = spans.find((s) => s.name === 'mcp.tool search_code')!;
  const work = spans.find((s) => s.name === 'engine.work')!;
  assert.equal(work.traceId, tool.traceId);
  assert.equal(work.parentSpanId, tool.spanId);
  assert.ok(spans.some((s) => s.name === 'mcp.tool index_status'));
});
