/**
 * Every path the index holds, for what the planner learns from the
 * repository's own layout (repo-test-words.ts, repo-frames.ts); null when
 * the store cannot list them, which leaves the planner as without the fact.
 */
import type { SearchIndex } from './search-index.js';

export async function readIndexPaths(
  index: Pick<SearchIndex, 'manifest'>,
): Promise<Iterable<string> | null> {
  const { manifest } = index;
  try {
    if (manifest.paths) return await manifest.paths();
    if (manifest.all) return (await manifest.all()).keys();
  } catch {
    // A store that fails to list its files tells nothing.
  }
  return null;
}
