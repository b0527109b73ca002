import { realpathSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_INDEX_DIR, INDEX_FILE } from '@codesift/core';

/** Where the index of `root` lives unless `--index` says otherwise. */
export function defaultIndexPath(root: string): string {
  return path.join(path.resolve(root), DEFAULT_INDEX_DIR, INDEX_FILE);
}

/**
 * The root an index file searches. An index in its default place belongs to
 * the directory holding its `.codesift`, wherever that directory now is: a
 * checkout moved or copied with its index must search and serve its own
 * files, not those at the absolute root it was built in (which may be gone,
 * or another copy). The stored root stands when it still holds this very
 * file, and for an index kept anywhere else (`--index` outside the tree).
 */
export function rootOfIndexFile(file: string, storedRoot: string | null): string | null {
  const dir = path.dirname(path.resolve(file));
  if (path.basename(dir) !== DEFAULT_INDEX_DIR) return storedRoot;
  const here = path.dirname(dir);
  if (storedRoot === null) return here;
  const same = (a: string, b: string) => {
    try {
      return realpathSync(a) === realpathSync(b);
    } catch {
      return false;
    }
  };
  return same(path.join(storedRoot, DEFAULT_INDEX_DIR, path.basename(file)), file)
    ? storedRoot
    : here;
}
