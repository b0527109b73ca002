import type { SearchEngine } from '@codesift/search';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, type McpServerOptions } from './server.js';

export interface StdioServerHandle {
  /** Resolves once the session is over: stdin ended, the client closed, or close() was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves MCP over a pair of streams (the process's stdin/stdout by default).
 * stdout carries only protocol messages: anything else written there breaks
 * the client, so callers log to stderr.
 */
export async function serveStdio(
  engine: SearchEngine,
  options: {
    stdin?: NodeJS.ReadableStream & { pause(): unknown };
    stdout?: NodeJS.WritableStream;
    server?: McpServerOptions;
    log?: (line: string) => void;
  } = {},
): Promise<StdioServerHandle> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = options.log ?? (() => {});
  const server = createMcpServer(engine, options.server);
  const transport = new StdioServerTransport(
    stdin as ConstructorParameters<typeof StdioServerTransport>[0],
    stdout as ConstructorParameters<typeof StdioServerTransport>[1],
  );

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return closed;
    closing = true;
    stdin.off('end', onEnd);
    stdin.off('close', onEnd);
    stdout.off('error', onStdoutError);
    try {
      await server.close();
    } finally {
      resolveClosed();
    }
  };
  // The SDK transport does not notice the client going away (stdin EOF), so
  // the server would otherwise outlive its client forever.
  const onEnd = () => {
    void close();
  };
  // EPIPE when the client died mid-reply: end the session instead of crashing.
  const onStdoutError = (err: Error) => {
    log(`stdout error: ${err.message}`);
    void close();
  };
  stdin.on('end', onEnd);
  stdin.on('close', onEnd);
  stdout.on('error', onStdoutError);
  transport.onerror = (err) => log(`protocol error: ${err.message}`);
  server.server.onclose = () => {
    void close();
  };
  await server.connect(transport);
  return { closed, close };
}
