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
 * GetVocabulary with `terms` lists the names relevant to those words (the
 * slice the LLM rewrite sends, see SearchEngine.vocabulary); without, the
 * most common names.
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
        ...(req.terms.length > 0 ? { terms: [...req.terms] } : {}),
      });
      ctx.signal.throwIfAborted();
      return { entries: entries.map((e) => ({ name: e.name, count: BigInt(e.count) })) };
    },
  };
}
