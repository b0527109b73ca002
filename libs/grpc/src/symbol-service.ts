import type { SymbolService } from '@codesift/proto';
import type { SearchEngine } from '@codesift/search';
import { symbolToWire } from '@codesift/wire';
import { invalidArgument } from './errors.js';
import type { ServiceHandlers } from './implement.js';

/** Symbol lookups and vocabulary listings return at most this many entries. */
export const MAX_SYMBOL_LIMIT = 1000;

function checkLimit(limit: number): number | undefined {
  if (limit > MAX_SYMBOL_LIMIT) {
    throw invalidArgument(`limit must be at most ${MAX_SYMBOL_LIMIT}, got ${limit}`);
  }
  return limit === 0 ? undefined : limit;
}

/**
 * GetVocabulary's `terms` are accepted but not used yet: the engine lists
 * names by prefix only, and choosing names relevant to a query belongs to the
 * planner that will do LLM rewriting.
 */
export function symbolHandlers(engine: SearchEngine): ServiceHandlers<typeof SymbolService.method> {
  return {
    async lookupSymbol(req, ctx) {
      if (req.name.trim().length === 0) throw invalidArgument('name must not be empty');
      const limit = checkLimit(req.limit);
      const symbols = await engine.lookupSymbol(req.name, {
        ...(req.kind ? { kind: req.kind } : {}),
        ...(limit ? { limit } : {}),
      });
      ctx.signal.throwIfAborted();
      return { symbols: symbols.map(symbolToWire) };
    },
    async getVocabulary(req, ctx) {
      const limit = checkLimit(req.limit);
      const entries = await engine.vocabulary({
        ...(req.prefix ? { prefix: req.prefix } : {}),
        ...(limit ? { limit } : {}),
      });
      ctx.signal.throwIfAborted();
      return { entries: entries.map((e) => ({ name: e.name, count: BigInt(e.count) })) };
    },
  };
}
