import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { LocalWorkspace } from '../workspace.js';
import { errorResultFrom, okResult } from './results.js';

export const clearIndexOutput = {
  index_path: z.string(),
  removed: z.array(z.string()).describe('Files deleted; empty when there was no index.'),
};

export const CLEAR_INDEX_DESCRIPTION = [
  'Destructive: delete the local search index of this codebase (asks no confirmation; the source files are not touched).',
  'Afterwards every search tool answers that the root is not indexed until index_codebase builds a new index.',
  'Use it only when asked to drop the index, or to start over from nothing; to refresh a stale index call index_codebase instead, with rebuild: true for a full re-index.',
  'Refused while an index job runs.',
].join(' ');

export function registerClearIndex(server: McpServer, workspace: LocalWorkspace): void {
  server.registerTool(
    'clear_index',
    {
      title: 'Delete the index',
      description: CLEAR_INDEX_DESCRIPTION,
      inputSchema: {},
      outputSchema: clearIndexOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async () => {
      let removed: string[];
      try {
        removed = await workspace.clear();
      } catch (err) {
        return errorResultFrom(err);
      }
      const text =
        removed.length === 0
          ? `There was no index at ${workspace.indexPath}; nothing was deleted.`
          : `Deleted the index of ${workspace.root} (${removed.join(', ')}). Call index_codebase to build a new one.`;
      return okResult(text, { index_path: workspace.indexPath, removed });
    },
  );
}
