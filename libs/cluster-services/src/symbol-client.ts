// The caller's side of the symbol service: the SymbolIndex port's read
// methods over NATS request/reply, so the query service (and anything else
// that plans queries) reads the symbol service's store without sharing its
// disk. Writes go through the pipeline (chunker -> `symbols` queue), never
// through this client.
import { requestService } from '@codesift/bus';
import { CodesiftError, type SymbolInfo } from '@codesift/core';
import type { SymbolIndex, SymbolLookupOptions, VocabularyOptions } from '@codesift/stores';
import { symbolFromWire } from '@codesift/wire';
import type { NatsConnection } from '@nats-io/transport-node';

export interface NatsSymbolIndexOptions {
  /** How long each request waits for a reply; default 5000 ms. */
  timeoutMs?: number;
}

export class NatsSymbolIndex implements SymbolIndex {
  private readonly timeoutMs: number;

  constructor(
    private readonly nc: NatsConnection,
    opts: NatsSymbolIndexOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  async lookup(name: string, opts: SymbolLookupOptions = {}): Promise<SymbolInfo[]> {
    const res = await requestService(
      this.nc,
      'symbolLookup',
      { name, kind: opts.kind ?? '', limit: opts.limit ?? 0 },
      { timeoutMs: this.timeoutMs },
    );
    return res.symbols.map(symbolFromWire);
  }

  async vocabulary(opts: VocabularyOptions = {}): Promise<{ name: string; count: number }[]> {
    const res = await requestService(
      this.nc,
      'symbolVocabulary',
      { prefix: opts.prefix ?? '', limit: opts.limit ?? 0 },
      { timeoutMs: this.timeoutMs },
    );
    return res.entries.map((e) => ({ name: e.name, count: Number(e.count) }));
  }

  /** The symbols related to `words` (lowercase stems), best first: see SymbolIndex.related. */
  async related(words: readonly string[], opts: { limit?: number } = {}): Promise<SymbolInfo[]> {
    const res = await requestService(
      this.nc,
      'symbolRelated',
      { words: [...words], limit: opts.limit ?? 0 },
      { timeoutMs: this.timeoutMs },
    );
    return res.symbols.map(symbolFromWire);
  }

  async count(): Promise<number> {
    const res = await requestService(this.nc, 'symbolCount', {}, { timeoutMs: this.timeoutMs });
    return Number(res.count);
  }

  upsert(): Promise<void> {
    return Promise.reject(readOnly('upsert'));
  }

  deleteByPaths(): Promise<void> {
    return Promise.reject(readOnly('deleteByPaths'));
  }
}

function readOnly(method: string): CodesiftError {
  return new CodesiftError(
    'INVALID_ARGUMENT',
    `NatsSymbolIndex.${method}: the symbol service's store is written by the pipeline, not by its clients`,
    { hint: 'publish the file on the `symbols` work queue (the chunker does) instead' },
  );
}
