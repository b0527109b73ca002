import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_INDEX_DIR, INDEX_FILE } from '@codesift/core';
import { defaultIndexPath } from '@codesift/stores';
import type { CliIO } from './io.js';
import { userCacheDir } from './user-cache-dir.js';

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

/**
 * Where the index of `root` lives when the tree cannot hold `.codesift/`:
 * `<user cache>/indexes/<dir name>-<hash of the real path>/index.db`. Keyed
 * by the real path so that a symlinked or relative spelling of the same
 * tree finds the same index; the name is only there for a person listing
 * the directory.
 */
export function cachedIndexPath(root: string, env: NodeJS.ProcessEnv): string {
  const real = realOrResolved(root);
  const name = path.basename(real).replace(/[^\w.-]/g, '-') || 'root';
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return path.join(userCacheDir(env), 'indexes', `${name}-${hash}`, INDEX_FILE);
}

/** The index of `root` that exists: `<root>/.codesift/index.db` first, else its user-cache index; null when neither. */
export function existingIndexOf(root: string, env: NodeJS.ProcessEnv): string | null {
  const inTree = defaultIndexPath(root);
  if (existsSync(inTree)) return inTree;
  const cached = cachedIndexPath(root, env);
  return existsSync(cached) ? cached : null;
}

/**
 * Where a command that writes the index of `root` puts it when no `--index`
 * was given. `inCacheBecause` says why the user cache was chosen (null when
 * the index is in the tree), for the one line the command prints about it.
 */
export interface IndexPlace {
  indexPath: string;
  inCacheBecause: string | null;
}

/**
 * An existing index stays where it is; a new one goes to `<root>/.codesift/`
 * unless the tree is read-only to this user (a checkout mounted read-only,
 * a shared system directory), where it goes to the user cache instead.
 */
export function indexPlaceFor(root: string, env: NodeJS.ProcessEnv): IndexPlace {
  const inTree = defaultIndexPath(root);
  const existing = existingIndexOf(root, env);
  if (existing) {
    return {
      indexPath: existing,
      inCacheBecause: existing === inTree ? null : 'it was built there',
    };
  }
  const blocked = whyNotWritable(path.dirname(inTree));
  return blocked
    ? { indexPath: cachedIndexPath(root, env), inCacheBecause: blocked }
    : { indexPath: inTree, inCacheBecause: null };
}

/**
 * The index a writing command (index, watch, eval --repo) uses for `root`
 * without --index: indexPlaceFor's choice, and when that is the user cache
 * one line on stderr saying where, as the user would otherwise look for
 * `.codesift/` in the tree and not find it.
 */
export function indexPathToWrite(root: string, quiet: boolean, io: CliIO): string {
  const place = indexPlaceFor(root, io.env);
  if (place.inCacheBecause !== null && !quiet) {
    io.stderr.write(
      `note: the index of ${root} is kept in ${path.dirname(place.indexPath)} (${place.inCacheBecause})\n`,
    );
  }
  return place.indexPath;
}

/** The errors that mean "this user cannot create files here", not a broken path. */
const NOT_WRITABLE = new Set(['EACCES', 'EROFS', 'EPERM']);

/**
 * Why `<root>/.codesift` cannot be created or written, or null when it can.
 * access(2) and not a trial mkdir, so that merely resolving where an index
 * goes (codesift mcp at startup) leaves no directory behind; it sees a
 * read-only mount (EROFS) and missing permissions, and root passes it as
 * root can write anywhere.
 */
function whyNotWritable(indexDir: string): string | null {
  const probe = existsSync(indexDir) ? indexDir : path.dirname(indexDir);
  try {
    accessSync(probe, constants.W_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code && NOT_WRITABLE.has(code)) return `${probe} is not writable: ${code}`;
    throw err;
  }
}

/**
 * Looks for the index of `start` and its parents, like git finds `.git`: at
 * each directory `.codesift/index.db`, then that directory's user-cache index.
 */
export function findIndexUpwards(start: string, env: NodeJS.ProcessEnv): string | null {
  let dir = path.resolve(start);
  for (;;) {
    const found = existingIndexOf(dir, env);
    if (found) return found;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
