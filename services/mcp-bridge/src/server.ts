import type { SearchEngine } from '@codesift/search';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerRepositoryTools, type ServedRepository } from './repositories.js';
import { registerClearIndex } from './tools/clear-index.js';
import { registerFindReferences } from './tools/find-references.js';
import { registerFindSymbol } from './tools/find-symbol.js';
import { registerGetFileOutline } from './tools/get-file-outline.js';
import { registerGetSnippet } from './tools/get-snippet.js';
import { registerIndexCodebase } from './tools/index-codebase.js';
import { registerIndexStatus } from './tools/index-status.js';
import { registerSearchCode } from './tools/search-code.js';
import { tracedEngine } from './traced-engine.js';
import type { LocalWorkspace } from './workspace.js';

export interface McpServerOptions {
  /** Reported to clients in the initialize handshake. */
  name?: string;
  version?: string;
  /** Milliseconds one search may take; a backend that misses it is dropped (see SearchResponse.degraded). */
  searchDeadlineMs?: number;
  /** Most lines get_snippet returns per call (default 400). */
  maxSnippetLines?: number;
  /**
   * The local index of the served directory: adds index_codebase and
   * clear_index, and index_status reports jobs and a missing index. Absent
   * for a remote index, which is built elsewhere.
   */
  workspace?: LocalWorkspace;
  /**
   * Several roots, each with its own index: every tool takes a `repository`
   * argument naming one, and list_repositories lists them. When given, the
   * engine and `workspace` arguments are not used.
   */
  repositories?: readonly ServedRepository[];
}

/** Sent in the initialize result; clients that support it put this in the model's context. */
export const SERVER_INSTRUCTIONS = [
  'codesift searches indexed code.',
  'Start with search_code for questions and identifiers; use find_symbol for the exact definition of a known name;',
  'find_references lists the lines that use a name; get_file_outline lists what one file defines; read around any result with get_snippet(path, start_line, end_line).',
  'When a tool says the root is not indexed, call index_codebase (if offered) and retry; index_status shows the index and any running job.',
  'Paths are relative to the indexed root (index_status shows it); in an index of many repositories each path starts with its repository name (index_status lists them), and path_include ["<name>/**"] keeps a search to one.',
].join(' ');

/** Added to the instructions when the server serves several roots. */
export const SEVERAL_REPOSITORIES_INSTRUCTIONS =
  "This server serves several repositories, each with its own index: list_repositories names them, and every other tool needs repository set to one of those names; paths are relative to that repository's root.";

/**
 * The codesift MCP server over any SearchEngine. It owns no transport and does
 * not close the engine: the caller connects it (stdio, HTTP, in-memory) and
 * decides the engine's lifetime, so one engine (and workspace) can serve
 * many sessions.
 */
export function createMcpServer(engine: SearchEngine, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: options.name ?? 'codesift', version: options.version ?? '0.1.0' },
    {
      instructions:
        (options.repositories?.length ?? 0) > 1
          ? `${SERVER_INSTRUCTIONS} ${SEVERAL_REPOSITORIES_INSTRUCTIONS}`
          : SERVER_INSTRUCTIONS,
    },
  );
  if (options.repositories) {
    registerRepositoryTools(server, options.repositories, (target, repository) =>
      registerTools(target, repository.engine, options, repository.workspace),
    );
  } else {
    registerTools(server, engine, options, options.workspace);
  }
  return server;
}

function registerTools(
  server: McpServer,
  engine: SearchEngine,
  options: McpServerOptions,
  workspace: LocalWorkspace | undefined,
): void {
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
  registerFindReferences(server, engine);
  registerGetFileOutline(server, engine);
  registerIndexStatus(server, engine, workspace);
  if (workspace) {
    registerIndexCodebase(server, workspace);
    registerClearIndex(server, workspace);
  }
}
