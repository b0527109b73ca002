import type { IndexJobStatus } from '@codesift/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { LocalWorkspace } from '../workspace.js';
import { describeJob } from './job-text.js';
import { errorResult, errorResultFrom, okResult } from './results.js';

/** Least time between two progress notifications; the last one is always sent. */
const PROGRESS_EVERY_MS = 250;
/**
 * Pause between the last progress notification and the answer. SDK 1.x
 * clients dispatch a notification a microtask later but a response at once,
 * so when both arrive in one read the response retires the progress token
 * first and the last count is dropped, with an "unknown token" error on the
 * client (modelcontextprotocol/typescript-sdk#2580). A short gap lets an
 * idle client read them apart; a starved one can still merge them, so the
 * answer itself carries the final counts.
 */
const LAST_PROGRESS_GAP_MS = 20;

export const indexCodebaseInput = {
  rebuild: z
    .boolean()
    .default(false)
    .describe(
      'Discard the index and index every file again (default false: only new, changed and deleted files).',
    ),
};

const jobSchema = z.object({
  job_id: z.string(),
  state: z.string(),
  phase: z.string(),
  files_total: z.number().int(),
  files_done: z.number().int(),
  files_changed: z.number().int(),
  files_deleted: z.number().int(),
  chunks: z.number().int(),
  symbols: z.number().int(),
  failures: z.number().int(),
  elapsed_seconds: z.number(),
  error: z.string().nullable(),
});

export const indexCodebaseOutput = { root: z.string(), job: jobSchema };

export const INDEX_CODEBASE_DESCRIPTION = [
  'Index the codebase this server serves (the same pipeline as `codesift index`): the first call builds the index, later calls update only new, changed and deleted files.',
  'Call it when another tool says the root is not indexed, or after you changed files and want searches to see them.',
  'Reports progress as MCP progress notifications when the request carries a progressToken, and returns when the index is written; the other tools keep answering meanwhile.',
  'Only one job runs at a time: a call while one runs says so (follow it with index_status).',
].join(' ');

export function registerIndexCodebase(server: McpServer, workspace: LocalWorkspace): void {
  server.registerTool(
    'index_codebase',
    {
      title: 'Index the codebase',
      description: INDEX_CODEBASE_DESCRIPTION,
      inputSchema: indexCodebaseInput,
      outputSchema: indexCodebaseOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ rebuild }, extra) => {
      let started: Awaited<ReturnType<LocalWorkspace['startIndex']>>;
      try {
        started = await workspace.startIndex({ rebuild });
      } catch (err) {
        return errorResultFrom(err);
      }
      if (!started.started) {
        return errorResult(
          `an index job is already ${started.job.state} for ${workspace.root}: ${describeJob(started.job)}`,
          'call index_status to follow it; searches use the new index once it finished',
        );
      }
      const token = extra._meta?.progressToken;
      let sentAt = 0;
      let sentDone = -1;
      let lastSend: Promise<void> = Promise.resolve();
      const send = (s: IndexJobStatus) => {
        sentAt = Date.now();
        sentDone = s.filesDone;
        return extra
          .sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token!,
              progress: s.filesDone,
              ...(s.filesTotal > 0 ? { total: s.filesTotal } : {}),
              message: describeJob(s),
            },
          })
          .catch(() => {
            // A client gone mid-job stops hearing progress; the job goes on.
          });
      };
      const notify = (s: IndexJobStatus) => {
        if (token === undefined) return;
        // Progress must grow with every notification (MCP): a change of phase
        // alone is not sent.
        if (s.filesDone <= sentDone) return;
        const final = s.state === 'succeeded' || s.state === 'failed';
        if (!final && sentDone >= 0 && Date.now() - sentAt < PROGRESS_EVERY_MS) return;
        lastSend = send(s);
      };
      let final: IndexJobStatus;
      try {
        final = await workspace.follow(started.job.jobId, notify, extra.signal);
      } catch (err) {
        return errorResultFrom(err);
      }
      // The last count is never held back: a client stops listening once the
      // call has answered, so it goes out, awaited, before the answer (a
      // throttled last update was otherwise lost under load).
      if (token !== undefined && final.filesDone > sentDone) lastSend = send(final);
      await lastSend;
      if (token !== undefined) await new Promise((r) => setTimeout(r, LAST_PROGRESS_GAP_MS));
      if (final.state === 'failed') {
        return errorResult(
          `indexing ${workspace.root} failed: ${final.error ?? 'unknown error'}`,
          rebuild ? undefined : 'index_codebase with rebuild: true starts from an empty index',
        );
      }
      const lines = [
        `Indexed ${workspace.root} in ${final.elapsedSeconds.toFixed(1)}s: ${final.filesChanged} files new or changed, ${final.filesDeleted} deleted, ${final.failures} failed; ${final.chunks} chunks and ${final.symbols} symbols written.`,
      ];
      try {
        const s = await workspace.engine.status();
        lines.push(
          `The index now holds ${s.files} files, ${s.chunks} chunks, ${s.symbols} symbols, ${s.vectors} vectors (${s.embedder ? `embedder ${s.embedder}` : 'keyword search only'}).`,
        );
      } catch {
        // The totals are a courtesy; the job's own counts stand.
      }
      lines.push('Search it with search_code, find_symbol and get_file_outline.');
      return okResult(lines.join('\n'), { root: workspace.root, job: jobJson(final) });
    },
  );
}

export function jobJson(s: IndexJobStatus): z.infer<typeof jobSchema> {
  return {
    job_id: s.jobId,
    state: s.state,
    phase: s.phase,
    files_total: s.filesTotal,
    files_done: s.filesDone,
    files_changed: s.filesChanged,
    files_deleted: s.filesDeleted,
    chunks: s.chunks,
    symbols: s.symbols,
    failures: s.failures,
    elapsed_seconds: s.elapsedSeconds,
    error: s.error,
  };
}

export { jobSchema };
