import type { SearchEngine } from '@codesift/search';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerFindSymbol } from './tools/find-symbol.js';
import { registerGetSnippet } from './tools/get-snippet.js';
import { registerIndexStatus } from './tools/index-status.js';
import { registerSearchCode } from './tools/search-code.js';
import { tracedEngine } from './traced-engine.js';

export interface McpServerOptions {
  /** Reported to clients in the initialize handshake. */
  name?: string;
  version?: string;
  /** Milliseconds one search may take; a backend that misses it is dropped (see SearchResponse.degraded). */
  searchDeadlineMs?: number;
  /** Most lines get_snippet returns per call (default 400). */
  maxSnippetLines?: number;
}

/** Sent in the initialize result; clients that support it put this in the model's context. */
export const SERVER_INSTRUCTIONS = [
  'codesift searches one indexed codebase.',
  'Start with search_code for questions and identifiers; use find_symbol for the exact definition of a known name;',
  'read around any result with get_snippet(path, start_line, end_line).',
  'Paths are relative to the indexed root (index_status shows it); in an index of many repositories each path starts with its repository name (index_status lists them), and path_include ["<name>/**"] keeps a search to one.',
].join(' ');

/**
 * The codesift MCP server over any SearchEngine. It owns no transport and does
 * not close the engine: the caller connects it (stdio, HTTP, in-memory) and
 * decides the engine's lifetime, so one engine can serve many sessions.
 */
export function createMcpServer(engine: SearchEngine, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: options.name ?? 'codesift', version: options.version ?? '0.1.0' },
    { instructions: SERVER_INSTRUCTIONS },
  );
  engine = tracedEngine(engine);
  registerSearchCode(
    server,
    engine,
    options.searchDeadlineMs === undefined ? {} : { deadlineMs: options.searchDeadlineMs },
  );
  registerFindSymbol(server, engine);
  registerGetSnippet(
    server,
    engine,
    options.maxSnippetLines === undefined ? {} : { maxLines: options.maxSnippetLines },
  );
  registerIndexStatus(server, engine);
  return server;
}
