import type { SymbolIndex } from '@codesift/stores';

/**
 * The symbol index of a ClusterIndex given none: holds nothing, writes
 * nothing. Search then runs without the definition boost (lookups find
 * nothing), as it does over an index without symbols.
 */
export const NO_SYMBOLS: SymbolIndex = {
  upsert: async () => {},
  deleteByPaths: async () => {},
  lookup: async () => [],
  vocabulary: async () => [],
  count: async () => 0,
};
