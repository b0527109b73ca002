import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { collect, firstLine, startCli } from './cli.js';

/**
 * Starts `codesift mcp --http --port 0 --json --token <token> …args` in `cwd`,
 * hands `use` an SDK client connected over streamable HTTP (and the line the
 * server printed), then stops the
 * server with SIGTERM and checks that it exits cleanly.
 */
export async function withMcpOverHttp(
  args: string[],
  options: { cwd: string; token: string },
  use: (client: Client, info: Record<string, unknown>) => Promise<void>,
): Promise<void> {
  const child = startCli(
    ['mcp', '--http', '--port', '0', '--json', '--token', options.token, ...args],
    { cwd: options.cwd, env: { CODESIFT_TOKEN: '' } },
  );
  try {
    const info = JSON.parse(await firstLine(child, 60_000)) as { url: string } & Record<
      string,
      unknown
    >;
    const client = new Client({ name: 'e2e-http', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(info.url), {
        requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
      }),
    );
    await use(client, info);
    await client.close();
    const exited = collect(child, 30_000);
    child.kill('SIGTERM');
    assert.equal((await exited).code, 0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
