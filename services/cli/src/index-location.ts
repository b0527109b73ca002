import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_INDEX_DIR, INDEX_FILE } from '@codesift/core';

/**
 * `--index` names the database file itself (anything ending in `.db`, or an
 * existing file), the index directory (like `<root>/.codesift`), or an indexed
 * repository's root (which holds `.codesift/index.db`).
 */
export function indexFileFromOption(option: string, cwd: string): string {
  const p = path.resolve(cwd, option);
  if (p.endsWith('.db')) return p;
  if (existsSync(p) && statSync(p).isFile()) return p;
  const inRoot = path.join(p, DEFAULT_INDEX_DIR, INDEX_FILE);
  if (!existsSync(path.join(p, INDEX_FILE)) && existsSync(inRoot)) return inRoot;
  return path.join(p, INDEX_FILE);
}

/** Looks for `<dir>/.codesift/index.db` in `start` and its parents, like git finds `.git`. */
export function findIndexUpwards(start: string): string | null {
  let dir = path.resolve(start);
  for (;;) {
    const candidate = path.join(dir, DEFAULT_INDEX_DIR, INDEX_FILE);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
