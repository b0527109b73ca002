import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError } from './errors.js';
import { isInside } from './paths.js';

// Which directories a server may be told to index. A server runs with its
// own privileges (the cluster's scanner often as root): an index job naming
// any directory would let a caller read what it cannot read itself, and
// replace the index with it. Jobs are confined to the scan roots.

/** The variable listing the scan roots, separated like PATH (`:` here, `;` on Windows). */
export const SCAN_ROOTS_ENV = 'CODESIFT_SCAN_ROOTS';

/** Splits a PATH-style list into absolute directories; empty entries are dropped. */
export function parseScanRoots(list: string | undefined, base = process.cwd()): string[] {
  return (list ?? '')
    .split(path.delimiter)
    .map((d) => d.trim())
    .filter((d) => d !== '')
    .map((d) => path.resolve(base, d));
}

/**
 * The scan roots from CODESIFT_SCAN_ROOTS, else the older single
 * CODESIFT_SCAN_ROOT, else `fallback` (the directory the service was started
 * for). Never "anywhere".
 */
export function scanRootsFromEnv(env: NodeJS.ProcessEnv, fallback: string): string[] {
  const listed = parseScanRoots(env[SCAN_ROOTS_ENV]);
  if (listed.length > 0) return listed;
  const single = parseScanRoots(env.CODESIFT_SCAN_ROOT);
  return single.length > 0 ? single : [path.resolve(fallback)];
}

/** The real path of `p`, or null when it does not exist here (or cannot be resolved). */
function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

export interface CheckedRoot {
  /** The directory to index: the real path when it exists on this disk, else the normalised one. */
  root: string;
  /** Whether it exists on this disk (a query service without the checkouts cannot tell). */
  exists: boolean;
}

/**
 * Resolves an index job's root against the scan roots and refuses one that
 * leaves them: relative roots resolve against the first scan root; `..` is
 * resolved first; and when the directory exists here its real path is
 * compared with the scan roots' real paths, so a symlink inside a scan root
 * that points outside it is refused too. A root that does not exist here is
 * refused (ENOENT_ROOT) unless `mayBeElsewhere` (a query service whose
 * scanner has the disk checks it again there).
 */
export function checkScanRoot(
  requested: string,
  scanRoots: readonly string[],
  options: { mayBeElsewhere?: boolean } = {},
): CheckedRoot {
  if (scanRoots.length === 0) {
    throw new CodesiftError(
      'PERMISSION_DENIED',
      'no scan roots are configured: nothing may be indexed',
    );
  }
  if (requested.includes('\0')) {
    throw new CodesiftError('INVALID_ARGUMENT', 'the index root contains a NUL byte');
  }
  const lexical = path.resolve(scanRoots[0]!, requested);
  const real = realOrNull(lexical);
  const inside =
    real === null
      ? scanRoots.some((s) => isInside(path.resolve(s), lexical))
      : scanRoots.some((s) => {
          const realScan = realOrNull(s);
          return realScan !== null && isInside(realScan, real);
        });
  if (!inside) {
    throw new CodesiftError(
      'PERMISSION_DENIED',
      `index root ${requested === lexical ? lexical : `'${requested}' (${real ?? lexical})`} is outside the scan roots (${scanRoots.join(', ')})`,
      {
        hint: 'index a directory under a scan root, or start the server with --scan-root <dir> (CODESIFT_SCAN_ROOTS)',
      },
    );
  }
  if (real === null) {
    if (options.mayBeElsewhere) return { root: lexical, exists: false };
    throw new CodesiftError('ENOENT_ROOT', `directory not found: ${lexical}`);
  }
  if (!statSync(real).isDirectory()) {
    throw new CodesiftError('NOT_A_DIRECTORY', `not a directory: ${lexical}`);
  }
  return { root: real, exists: true };
}
