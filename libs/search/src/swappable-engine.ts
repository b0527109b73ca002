/**
 * A SearchEngine whose engine can be replaced while it serves: a server
 * reopens its index after a rebuild or when the writer records an embedder.
 * Calls in flight finish on the engine they started on, which closes when
 * its last call returns.
 */
import { fileSymbolsOf } from './file-symbols.js';
import type { SearchEngine } from './types.js';

export interface SwappableEngine {
  readonly engine: SearchEngine;
  /**
   * Makes `next` the engine new calls use and retires the old one. After
   * close, `next` is closed instead and false is returned.
   */
  swap(next: SearchEngine): Promise<boolean>;
  readonly closed: boolean;
}

interface Slot {
  engine: SearchEngine;
  active: number;
  retired: boolean;
}

export function swappableEngine(
  first: SearchEngine,
  onError: (err: unknown) => void = () => undefined,
): SwappableEngine {
  let current: Slot = { engine: first, active: 0, retired: false };
  let closed = false;
  const release = (slot: Slot) => {
    if (slot.retired && slot.active === 0) slot.engine.close().catch(onError);
  };
  const use = async <T>(fn: (e: SearchEngine) => Promise<T>): Promise<T> => {
    const slot = current;
    slot.active++;
    try {
      return await fn(slot.engine);
    } finally {
      slot.active--;
      release(slot);
    }
  };
  return {
    engine: {
      search: (request) => use((e) => e.search(request)),
      lookupSymbol: (name, options) => use((e) => e.lookupSymbol(name, options)),
      fileSymbols: (p) => use((e) => fileSymbolsOf(e, p)),
      vocabulary: (options) => use((e) => e.vocabulary(options)),
      status: () => use((e) => e.status()),
      getSnippet: (p, start, end) => use((e) => e.getSnippet(p, start, end)),
      async close() {
        closed = true;
        current.retired = true;
        release(current);
      },
    },
    async swap(next) {
      if (closed) {
        await next.close();
        return false;
      }
      const old = current;
      current = { engine: next, active: 0, retired: false };
      old.retired = true;
      release(old);
      return true;
    },
    get closed() {
      return closed;
    },
  };
}
