import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerMatches, errorMessage, isLoopbackHost } from '@codesift/core';
import type { SearchEngine } from '@codesift/search';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer, type McpServerOptions } from './server.js';

/** Where MCP clients send their requests. */
export const MCP_PATH = '/mcp';
/** Unauthenticated liveness probe for load balancers and Kubernetes. */
export const HEALTH_PATH = '/healthz';

export interface HttpServerOptions {
  host: string;
  /** 0 picks any free port; the handle reports the one chosen. */
  port: number;
  /** Bearer token every MCP request must carry; null serves without authentication (see resolveServerAuth in @codesift/core). */
  token: string | null;
  server?: McpServerOptions;
  log?: (line: string) => void;
}

export interface HttpServerHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:7400/mcp. */
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves MCP over streamable HTTP, stateless: every POST gets a fresh MCP
 * server and transport that live for that one request. No session state means
 * nothing to expire or leak, any replica can answer any request, and a
 * restart loses nothing; the cost is that the server cannot push
 * notifications on its own (GET and DELETE answer 405). Each POST is answered
 * as an event stream, so a long call (index_codebase) sends its progress
 * notifications before its result. Building the server per request is cheap
 * (a few tool registrations); the engine and the workspace are shared.
 */
export async function serveHttp(
  engine: SearchEngine,
  options: HttpServerOptions,
): Promise<HttpServerHandle> {
  const log = options.log ?? (() => {});
  const loopbackOnly = isLoopbackHost(options.host);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (pathname !== MCP_PATH) {
      sendJsonRpcError(res, 404, -32601, `not found; the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    // A web page can make a browser send requests to 127.0.0.1 through a
    // hostile DNS name (DNS rebinding); checking Host and Origin stops it,
    // which matters most when serving loopback without a token.
    if (loopbackOnly && !loopbackHeaders(req)) {
      sendJsonRpcError(res, 403, -32000, 'forbidden: Host or Origin is not a loopback address');
      return;
    }
    if (options.token !== null && !bearerMatches(req.headers.authorization, options.token)) {
      const wrong = req.headers.authorization !== undefined;
      res.setHeader(
        'WWW-Authenticate',
        wrong ? 'Bearer realm="codesift", error="invalid_token"' : 'Bearer realm="codesift"',
      );
      sendJsonRpcError(
        res,
        401,
        -32001,
        wrong
          ? 'unauthorized: the bearer token is wrong'
          : 'unauthorized: send Authorization: Bearer <token>',
      );
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      sendJsonRpcError(res, 405, -32000, 'method not allowed: this server is stateless, send POST');
      return;
    }
    const server = createMcpServer(engine, options.server);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      // JSON responses would drop the notifications of the call (progress).
      enableJsonResponse: false,
    });
    transport.onerror = (err) => log(`mcp http: ${err.message}`);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      log(`mcp http: request failed: ${errorMessage(err)}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'internal server error');
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  http.on('error', (err) => log(`mcp http: ${err.message}`));
  const address = http.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${address.port}${MCP_PATH}`,
    host: address.address,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        http.close(() => resolve());
        // Idle keep-alive sockets would hold close() open until they time out.
        http.closeIdleConnections();
        setTimeout(() => http.closeAllConnections(), 2000).unref();
      });
      return closing;
    },
  };
}

function loopbackHeaders(req: IncomingMessage): boolean {
  const host = req.headers.host;
  if (!host || !isLoopbackHost(hostnameOf(`http://${host}`) ?? '')) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const originHost = hostnameOf(origin);
  return originHost !== null && isLoopbackHost(originHost);
}

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
