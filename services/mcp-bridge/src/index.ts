export {
  HEALTH_PATH,
  type HttpServerHandle,
  type HttpServerOptions,
  MCP_PATH,
  serveHttp,
} from './http-transport.js';
export { normalizeRelativePath, rejectUnsafePath } from './path-guard.js';
export {
  checkRepositoryNames,
  LIST_REPOSITORIES_DESCRIPTION,
  type ServedRepository,
} from './repositories.js';
export {
  createMcpServer,
  type McpServerOptions,
  SERVER_INSTRUCTIONS,
  SEVERAL_REPOSITORIES_INSTRUCTIONS,
} from './server.js';
export { type StdioServerHandle, serveStdio } from './stdio-transport.js';
export { MAX_SNIPPET_LINES } from './tools/get-snippet.js';
export {
  type LocalWorkspace,
  type LocalWorkspaceOptions,
  openLocalWorkspace,
  type WorkspaceWatch,
} from './workspace.js';
