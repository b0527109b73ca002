import { CodesiftError } from '@codesift/core';
import { openLocalEngine, type SearchEngine } from '@codesift/search';
import { findIndexUpwards, indexFileFromOption } from './index-location.js';
import type { CliIO } from './io.js';

/**
 * The index a command works on: `--index <path>` when given, else the index
 * of the working directory or its nearest parent that has one (as git finds
 * `.git`), in the tree or in the user cache (index-location.ts).
 */
export function resolveIndexPath(indexOption: string | undefined, io: CliIO): string {
  if (indexOption) return indexFileFromOption(indexOption, io.cwd);
  const found = findIndexUpwards(io.cwd, io.env);
  if (!found) {
    throw new CodesiftError('INDEX_NOT_FOUND', `no codesift index in ${io.cwd} or its parents`, {
      hint: "run 'codesift index <dir>' first, or pass --index <path>",
    });
  }
  return found;
}

/** Opens the local search engine for a command; the caller closes it. */
export async function openEngineFromArgs(
  options: { index?: string; keywordOnly?: boolean },
  io: CliIO,
): Promise<SearchEngine> {
  const indexPath = resolveIndexPath(options.index, io);
  return openLocalEngine({
    indexPath,
    env: io.env,
    embedder: options.keywordOnly ? null : undefined,
  });
}
