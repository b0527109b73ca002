import path from 'node:path';
import { CodesiftError } from './errors.js';

/** Converts an OS path fragment to POSIX separators. */
export function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/**
 * Resolves `rel` against `root` and refuses anything that escapes it
 * (`..`, absolute paths, NUL bytes). Returns the absolute path.
 */
export function resolveInsideRoot(root: string, rel: string): string {
  if (rel.includes('\0')) {
    throw new CodesiftError(
      'PATH_OUTSIDE_ROOT',
      `path contains a NUL byte: ${JSON.stringify(rel)}`,
    );
  }
  const absRoot = path.resolve(root);
  const abs = path.resolve(absRoot, rel);
  const relative = path.relative(absRoot, abs);
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) {
    return abs;
  }
  throw new CodesiftError(
    'PATH_OUTSIDE_ROOT',
    `path ${JSON.stringify(rel)} is outside the indexed root`,
  );
}

/** True when `child` is `parent` or lies below it (both absolute, normalised). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
