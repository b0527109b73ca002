// The symbol service on NATS request/reply: lookup, vocabulary, related
// symbols and count answered from a SymbolIndex (the symbols stage's store). The subjects and
// messages are @codesift/bus SERVICES.symbol*; NatsSymbolIndex
// (symbol-client.ts) is the caller's side.
import { type Responder, type ServeOptions, serveRequests } from '@codesift/bus';
import { CodesiftError } from '@codesift/core';
import type { SymbolIndex } from '@codesift/stores';
import { symbolToWire } from '@codesift/wire';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * The read side of a symbol store: what the service answers from. `related`
 * is optional as in the port; every SQLite store has it, and a store
 * without it answers `symbolRelated` with an error.
 */
export type SymbolReader = Pick<SymbolIndex, 'lookup' | 'vocabulary' | 'count' | 'related'>;

export interface SymbolService {
  readonly responders: readonly Responder[];
  /** Stops taking requests; replies in flight still go out. */
  stop(): Promise<void>;
}

/**
 * Answers the symbol requests from `store` in the `symbols` queue group, so
 * any number of replicas share them. A request's 0 limit means the store's
 * default.
 */
export function serveSymbolIndex(
  nc: NatsConnection,
  store: SymbolReader,
  opts: ServeOptions = {},
): SymbolService {
  const responders = [
    serveRequests(
      nc,
      'symbolLookup',
      async (req) => {
        const symbols = await store.lookup(req.name, {
          ...(req.kind ? { kind: req.kind } : {}),
          ...(req.limit ? { limit: req.limit } : {}),
        });
        return { symbols: symbols.map(symbolToWire) };
      },
      opts,
    ),
    serveRequests(
      nc,
      'symbolVocabulary',
      async (req) => {
        const entries = await store.vocabulary({
          ...(req.prefix ? { prefix: req.prefix } : {}),
          ...(req.limit ? { limit: req.limit } : {}),
        });
        return { entries: entries.map((e) => ({ name: e.name, count: BigInt(e.count) })) };
      },
      opts,
    ),
    serveRequests(
      nc,
      'symbolRelated',
      async (req) => {
        if (!store.related) throw cannotRelate();
        const symbols = await store.related(req.words, req.limit ? { limit: req.limit } : {});
        return { symbols: symbols.map(symbolToWire) };
      },
      opts,
    ),
    serveRequests(nc, 'symbolCount', async () => ({ count: BigInt(await store.count()) }), opts),
  ];
  return {
    responders,
    async stop() {
      await Promise.all(responders.map((r) => r.stop()));
    },
  };
}

/**
 * A SymbolReader over a store opened on first use, and again after a failed
 * open: the symbols stage may start before the writer has created the index
 * it reads (the development cluster's fallback).
 */
export function lazySymbolReader(open: () => { symbols: SymbolReader; close(): void }): {
  reader: SymbolReader;
  close(): void;
} {
  let opened: { symbols: SymbolReader; close(): void } | undefined;
  const get = () => {
    opened ??= open();
    return opened.symbols;
  };
  return {
    reader: {
      lookup: (name, o) => get().lookup(name, o),
      vocabulary: (o) => get().vocabulary(o),
      related: async (words, o) => {
        const store = get();
        if (!store.related) throw cannotRelate();
        return store.related(words, o);
      },
      count: () => get().count(),
    },
    close() {
      opened?.close();
      opened = undefined;
    },
  };
}

function cannotRelate(): CodesiftError {
  return new CodesiftError('INTERNAL', 'this symbol store cannot list related symbols');
}
