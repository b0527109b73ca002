/**
 * Trace frames that name the indexed repository's own files from an
 * installed copy of it.
 *
 * A stack trace's frames under `site-packages/`, a Go module cache, the
 * cargo registry, `node_modules/` or a gem directory are read as
 * dependencies and give the search nothing (@codesift/query trace rules).
 * That holds for the report's own application, but a report filed against a
 * library shows the library as its users install it: a sympy traceback ends
 * in `.../site-packages/sympy/core/basic.py`, a clap panic in
 * `.../registry/src/<index>/clap_builder-4.4.16/src/parser/parser.rs`. The
 * repository tells which frames are its own: a frame's path whose tail is
 * one of its files names that file. Read once per index version from the
 * manifest's paths, and only for a query whose trace has such frames.
 */
import type { OwnFrames } from '@codesift/query';
import { readIndexPaths } from './index-paths.js';
import type { SearchIndex } from './search-index.js';

/** The repository's paths by their last segment, for matching frames' tails. */
export type PathsByName = ReadonlyMap<string, readonly string[]>;

export function pathsByName(paths: Iterable<string>): PathsByName {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    const list = byName.get(name);
    if (list === undefined) byName.set(name, [path]);
    else list.push(path);
  }
  return byName;
}

/**
 * The repository file a frame's printed path names, or null. The longest
 * tail of the path's segments that some file's path ends with decides: it
 * names that file when exactly one file ends with it, or when several do
 * and one is that very path (the copy's root is the repository's: a Go
 * module's `context.go` beside `render/context.go`); else nothing, as a
 * shorter tail would only be more ambiguous.
 */
export function ownFileOf(printed: string, byName: PathsByName): string | null {
  const segments = printed
    .replaceAll('\\', '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  const name = segments.at(-1);
  if (name === undefined) return null;
  const candidates = byName.get(name);
  if (candidates === undefined) return null;
  for (let from = 0; from < segments.length; from++) {
    const tail = segments.slice(from).join('/');
    const matching = candidates.filter((p) => p === tail || p.endsWith(`/${tail}`));
    if (matching.length === 1) return matching[0]!;
    // An installed copy's root is the repository's root: the file at that very path.
    if (matching.length > 1) return matching.includes(tail) ? tail : null;
  }
  return null;
}

/** Of the frame paths printed from installed copies (externalFramePaths), those naming one of the repository's files. */
export function ownFrames(printedPaths: readonly string[], byName: PathsByName): OwnFrames {
  const own = new Map<string, string>();
  for (const printed of printedPaths) {
    const file = ownFileOf(printed, byName);
    if (file !== null) own.set(printed, file);
  }
  return own;
}

/** The index's paths by name; none when the store cannot list them (every installed frame stays a dependency's). */
export async function readPathsByName(index: Pick<SearchIndex, 'manifest'>): Promise<PathsByName> {
  return pathsByName((await readIndexPaths(index)) ?? []);
}
