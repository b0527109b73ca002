import type { LocalEngineOptions } from '@codesift/search';
import type { EngineFactory } from './protocol.js';

/**
 * The factory for local-index workers: each opens `openLocalEngine(options)`.
 * An embedder object cannot cross threads: leave it out (each worker loads
 * the index's own model) or pass null for keyword only.
 */
export function localEngineFactory(
  options: Omit<LocalEngineOptions, 'embedder'> & { embedder?: null },
): EngineFactory {
  return {
    module: import.meta.resolve('@codesift/search'),
    exportName: 'openLocalEngine',
    options,
  };
}
