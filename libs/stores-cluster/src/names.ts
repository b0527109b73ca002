// The names of a store set, apart from the stores themselves: reading the
// settings must not load the Elasticsearch and Qdrant clients.
import { CodesiftError } from '@codesift/core';

export const DEFAULT_INDEX_NAME = 'codesift';

/** Elasticsearch index names and the Qdrant collection of a store set. */
export interface ClusterNames {
  chunks: string;
  manifest: string;
  meta: string;
  /** One doc per file with its text, for snippets without the checkout. */
  files: string;
  vectors: string;
}

/** ES index names: lowercase, no leading `-_+`, none of `\/*?"<>| ,#:`; kept short and plain here. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;

/** The names of the store set called `prefix` (default `codesift`). */
export function clusterNames(prefix = DEFAULT_INDEX_NAME): ClusterNames {
  if (!NAME.test(prefix)) {
    throw new CodesiftError('INVALID_ARGUMENT', `invalid index name ${JSON.stringify(prefix)}`, {
      hint: 'use lowercase letters, digits, ".", "_" or "-" (at most 100, starting with a letter or digit), e.g. CODESIFT_INDEX_NAME=codesift',
    });
  }
  return {
    chunks: `${prefix}-chunks`,
    manifest: `${prefix}-manifest`,
    meta: `${prefix}-meta`,
    files: `${prefix}-files`,
    vectors: `${prefix}-vectors`,
  };
}
