import type { SearchService } from '@codesift/proto';
import type { SearchEngine } from '@codesift/search';
import type { ServiceHandlers } from './implement.js';
import { searchRequestFromProto, searchResponseToProto } from './search-mapping.js';

/**
 * The engine's share of the call's remaining time. The engine drops a side
 * that misses its deadline and answers with what it has (flagged in
 * `degraded`); giving it slightly less than the call has leaves room to send
 * that answer before grpc-js ends the call with DEADLINE_EXCEEDED.
 */
export function engineBudgetMs(remainingMs: number): number {
  return Math.max(1, Math.floor(remainingMs - Math.min(50, remainingMs * 0.1)));
}

export function searchHandlers(engine: SearchEngine): ServiceHandlers<typeof SearchService.method> {
  return {
    async search(req, ctx) {
      const request = searchRequestFromProto(req);
      if (ctx.deadlineMs !== undefined) request.deadlineMs = engineBudgetMs(ctx.deadlineMs);
      request.signal = ctx.signal;
      const res = await engine.search(request);
      ctx.signal.throwIfAborted();
      return searchResponseToProto(res, { explain: req.explain });
    },
  };
}
