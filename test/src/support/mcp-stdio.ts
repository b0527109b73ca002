import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StdioClientTransport,
  type StdioServerParameters,
} from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * An MCP SDK client connected over stdio to the server `params` starts, and
 * the server's stderr so far. A server that exits before the handshake is
 * an error carrying that stderr (the SDK alone says only "Connection closed").
 */
export async function connectStdio(
  params: Omit<StdioServerParameters, 'stderr'>,
  clientName: string,
): Promise<{ client: Client; log: () => string }> {
  const transport = new StdioClientTransport({ ...params, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  const client = new Client({ name: clientName, version: '0.0.0' });
  await client.connect(transport).catch((err: Error) => {
    throw new Error(
      `${params.command} ${params.args?.join(' ')} did not start: ${err.message}\n${stderr}`,
    );
  });
  return { client, log: () => stderr };
}
