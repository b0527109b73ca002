import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { checkRepositoryNames, pickRepository } from './repositories.js';
import { createMcpServer } from './server.js';
import { FakeEngine } from './testing/fake-engine.js';

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

test('the repository argument routes each call to its own engine', async () => {
  const alpha = new FakeEngine({ 'a.ts': 'alpha line\n' });
  const beta = new FakeEngine({ 'b.ts': 'beta line\n' });
  const server = createMcpServer(alpha, {
    repositories: [
      { name: 'alpha', engine: alpha },
      { name: 'beta', engine: beta },
    ],
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'get_snippet', arguments: args })) as CallToolResult;
  try {
    const b = await call({ repository: 'beta', path: 'b.ts', start_line: 1 });
    assert.equal((b.structuredContent as { text: string }).text.trim(), 'beta line', text(b));
    const a = await call({ repository: 'alpha', path: 'b.ts', start_line: 1 });
    assert.equal(a.isError, true, 'alpha has no b.ts');
    const omitted = await call({ path: 'a.ts', start_line: 1 });
    assert.match(text(omitted), /several repositories[\s\S]*alpha, beta/);
    const listed = await client.callTool({ name: 'list_repositories', arguments: {} });
    assert.deepEqual(
      (listed.structuredContent as { repositories: { name: string }[] }).repositories.map(
        (r) => r.name,
      ),
      ['alpha', 'beta'],
    );
  } finally {
    await client.close();
    await server.close();
  }
});

test('names: one root needs none, unknown and clashing names are refused', () => {
  assert.equal(pickRepository(['only'], undefined), 'only');
  assert.throws(() => pickRepository(['a', 'b'], 'c'), /no repository named 'c'.*a, b/);
  assert.throws(() => checkRepositoryNames(['x', 'x']), /two roots are named 'x'/);
  assert.throws(() => checkRepositoryNames(['a b']), /invalid repository name/);
});
