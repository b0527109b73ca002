import type { SearchService } from '@codesift/proto';
import type { SearchEngine, SearchResponse } from '@codesift/search';
import { codesiftMetrics, degradedSide, secondsSince } from '@codesift/telemetry';
import { searchRequestFromProto, searchResponseToProto, snippetToProto } from '@codesift/wire';
import { invalidArgument } from './errors.js';
import type { ServiceHandlers } from './implement.js';
import { checkSearchRequest } from './search-request-limits.js';

/**
 * GetSnippet bounds. The engine returns at most a couple of thousand lines per
 * call and clamps the range to the file; a request beyond these is a bug in
 * the caller, answered INVALID_ARGUMENT rather than silently cut.
 */
export const MAX_SNIPPET_LINE = 10_000_000;
export const MAX_SNIPPET_SPAN = 10_000;
const MAX_SNIPPET_PATH_CHARS = 4096;

/**
 * The engine's share of the call's remaining time. The engine drops a side
 * that misses its deadline and answers with what it has (flagged in
 * `degraded`); giving it slightly less than the call has leaves room to send
 * that answer before grpc-js ends the call with DEADLINE_EXCEEDED.
 */
export function engineBudgetMs(remainingMs: number): number {
  return Math.max(1, Math.floor(remainingMs - Math.min(50, remainingMs * 0.1)));
}

/** Query latency, the embed share of it, and which sides were dropped. */
function recordSearch(res: SearchResponse, seconds: number): void {
  const m = codesiftMetrics();
  m.queryDuration.record(seconds, { outcome: res.degraded.length > 0 ? 'degraded' : 'ok' });
  const embedMs = res.timings.embed;
  if (embedMs !== undefined) m.embedDuration.record(embedMs / 1000, { use: 'query' });
  for (const entry of res.degraded) m.degraded.add(1, { side: degradedSide(entry) });
}

export function searchHandlers(engine: SearchEngine): ServiceHandlers<typeof SearchService.method> {
  return {
    async search(req, ctx) {
      checkSearchRequest(req);
      const request = searchRequestFromProto(req);
      if (ctx.deadlineMs !== undefined) request.deadlineMs = engineBudgetMs(ctx.deadlineMs);
      request.signal = ctx.signal;
      const started = performance.now();
      let res: SearchResponse;
      try {
        res = await engine.search(request);
      } catch (err) {
        codesiftMetrics().queryDuration.record(secondsSince(started), { outcome: 'error' });
        throw err;
      }
      recordSearch(res, secondsSince(started));
      ctx.signal.throwIfAborted();
      return searchResponseToProto(res, { explain: req.explain });
    },
    async getSnippet(req, ctx) {
      const { path, range } = req;
      if (path.trim().length === 0) throw invalidArgument('path must not be empty');
      if (path.length > MAX_SNIPPET_PATH_CHARS) {
        throw invalidArgument(
          `path is ${path.length} characters; at most ${MAX_SNIPPET_PATH_CHARS}`,
        );
      }
      if (!range) throw invalidArgument('range is required (start_line and end_line, 1-based)');
      const { startLine, endLine } = range;
      if (startLine < 1) throw invalidArgument('range.start_line must be at least 1');
      if (endLine < startLine) {
        throw invalidArgument(
          `range.end_line (${endLine}) must not be before range.start_line (${startLine})`,
        );
      }
      if (endLine > MAX_SNIPPET_LINE) {
        throw invalidArgument(`range.end_line must be at most ${MAX_SNIPPET_LINE}, got ${endLine}`);
      }
      if (endLine - startLine + 1 > MAX_SNIPPET_SPAN) {
        throw invalidArgument(
          `range spans ${endLine - startLine + 1} lines; at most ${MAX_SNIPPET_SPAN} per call`,
        );
      }
      // The engine refuses paths outside the root (PATH_OUTSIDE_ROOT) and files it did not index.
      const snippet = await engine.getSnippet(path, startLine, endLine);
      ctx.signal.throwIfAborted();
      return snippetToProto(snippet);
    },
  };
}
