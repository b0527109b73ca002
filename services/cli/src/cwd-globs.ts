import path from 'node:path';
import { UsageError } from './io.js';

/**
 * `--path` and `--exclude` from a subdirectory of the indexed root are read
 * from there, as git reads pathspecs, so they share a base with the paths
 * the text output prints (relative to the working directory):
 * in `<root>/src`, `sub/**` means `src/sub/**`, `graph.py` means
 * `src/graph.py` and `*.go` means `src/**\/*.go`. A glob starting with `:/`
 * is read from the root, as git's `:/` is. Outside the root (`--index`
 * from elsewhere) globs are root-relative as they stand.
 */
export function globsFromCwd(globs: readonly string[], root: string | null, cwd: string): string[] {
  const prefix = root === null ? '' : path.relative(root, cwd).split(path.sep).join('/');
  const inside = prefix !== '' && !prefix.startsWith('..') && !path.isAbsolute(prefix);
  return globs.map((glob) => {
    if (glob.startsWith(':/')) return glob.slice(2);
    if (!inside) return glob;
    const nameGlob = !glob.includes('/') && /[*?[{]/.test(glob);
    const joined = path.posix.normalize(`${prefix}/${nameGlob ? `**/${glob}` : glob}`);
    if (joined === '..' || joined.startsWith('../')) {
      throw new UsageError(`${glob} (from ${prefix}/) leaves the indexed root`);
    }
    return joined === '.' ? '**' : joined.replace(/\/$/, '');
  });
}
