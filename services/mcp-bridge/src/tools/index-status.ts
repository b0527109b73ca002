import type { IndexJobStatus } from '@codesift/core';
import type { IndexStatusInfo, SearchEngine } from '@codesift/search';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { LocalWorkspace } from '../workspace.js';
import { jobJson, jobSchema } from './index-codebase.js';
import { describeJob } from './job-text.js';
import { errorResultFrom, okResult } from './results.js';

export const indexStatusOutput = {
  root: z
    .string()
    .nullable()
    .describe('Directory the index covers; paths in results are relative to it.'),
  repositories: z
    .array(z.string())
    .describe(
      'In an index of many repositories, their names: every path starts with one (root is then null). Empty for an index of one tree.',
    ),
  index_path: z.string(),
  files: z.number().int(),
  chunks: z.number().int(),
  symbols: z.number().int(),
  vectors: z.number().int(),
  embedder: z.string().nullable().describe('Embedding model, or null for a keyword-only index.'),
  dimensions: z.number().int().nullable(),
  updated_at: z.string().nullable().describe('Time of the last index write (ISO 8601).'),
  bytes: z.number().int(),
  indexed: z
    .boolean()
    .describe('False when the root has no index yet: call index_codebase (counts are then 0).'),
  job: jobSchema
    .nullable()
    .describe('The running or queued index job, else the last one of this session; null if none.'),
  watching: z
    .boolean()
    .nullable()
    .describe(
      'Whether the server re-indexes files as they are saved (null for a remote index). When false, call index_codebase after editing; results from edited files are marked stale meanwhile.',
    ),
};

export const INDEX_STATUS_DESCRIPTION = [
  'Describe the search index: the root directory it covers (or the repositories it holds), counts of files, chunks, symbols and vectors, the embedding model (none means keyword-only search) and when it was last updated.',
  'Also shows the progress of a running index job (index_codebase), and whether the root is indexed at all.',
  'Also says whether the server re-indexes files as they are saved (watch).',
  'Use it to check what codebase you are searching, or whether the index is empty or stale, before trusting an empty search.',
].join(' ');

/** Without a workspace (a remote index) the status is the engine's alone. */
export function registerIndexStatus(
  server: McpServer,
  engine: SearchEngine,
  workspace?: LocalWorkspace,
): void {
  server.registerTool(
    'index_status',
    {
      title: 'Index status',
      description: INDEX_STATUS_DESCRIPTION,
      inputSchema: {},
      outputSchema: indexStatusOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async () => {
      let s: IndexStatusInfo;
      let job: IndexJobStatus | undefined;
      try {
        job = await workspace?.latestJob();
        s = workspace && !workspace.hasIndex() ? unindexed(workspace) : await engine.status();
      } catch (err) {
        return errorResultFrom(err);
      }
      const indexed = !workspace || workspace.hasIndex();
      const updated = s.updatedAt > 0 ? new Date(s.updatedAt).toISOString() : null;
      const lines = [
        s.repositories.length > 0
          ? `repositories (${s.repositories.length}): ${s.repositories.join(', ')}`
          : `root: ${s.root ?? '(unknown)'}`,
        `index: ${s.indexPath} (${formatBytes(s.bytes)})`,
        `files: ${s.files}, chunks: ${s.chunks}, symbols: ${s.symbols}, vectors: ${s.vectors}`,
        `embedder: ${s.embedder ? `${s.embedder}${s.dimensions ? ` (${s.dimensions}-d)` : ''}` : 'none (keyword search only)'}`,
        `last update: ${updated ?? 'never'}`,
      ];
      if (!indexed) {
        lines.splice(1, 1, `index: none yet at ${s.indexPath}; call index_codebase to build it`);
        lines.splice(
          3,
          1,
          `embedder for the new index: ${s.embedder ?? 'none (keyword search only)'}`,
        );
      }
      if (job) lines.push(`index job: ${job.state}, ${describeJob(job)}`);
      if (workspace) {
        lines.push(
          workspace.watching()
            ? 'watch: on (files saved under the root are re-indexed within about a second)'
            : 'watch: off (call index_codebase after editing; results from edited files are marked stale)',
        );
      }
      return okResult(lines.join('\n'), {
        root: s.root,
        repositories: s.repositories,
        index_path: s.indexPath,
        files: s.files,
        chunks: s.chunks,
        symbols: s.symbols,
        vectors: s.vectors,
        embedder: s.embedder,
        dimensions: s.dimensions,
        updated_at: updated,
        bytes: s.bytes,
        indexed,
        job: job ? jobJson(job) : null,
        watching: workspace ? workspace.watching() : null,
      });
    },
  );
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** What index_status reports for a root with no index yet. */
function unindexed(workspace: LocalWorkspace): IndexStatusInfo {
  return {
    root: workspace.root,
    repositories: [],
    indexPath: workspace.indexPath,
    files: 0,
    chunks: 0,
    symbols: 0,
    vectors: 0,
    embedder: workspace.embedder,
    dimensions: null,
    updatedAt: 0,
    bytes: 0,
  };
}
