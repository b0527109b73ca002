/**
 * Path and language filters. Languages and the static directory prefixes of
 * globs go down to the stores (which filter by plain string prefix); the
 * globs themselves are then checked on each candidate with picomatch, since
 * a prefix is only a superset of what a glob matches.
 *
 * Pattern rules (paths are relative to the indexed root, POSIX):
 * - a glob (`src/**\/*.ts`, `**\/test/**`) is matched with picomatch,
 *   `dot: true` so dotfiles are not silently skipped; a glob without a slash
 *   (`*.go`) matches the file name at any depth, as in .gitignore;
 * - a plain path (`libs/search`, `README.md`, `docs/`) matches that file or
 *   everything under that directory, which is what `--path src` means.
 */

import { createRequire } from 'node:module';
import { checkedLanguage, detectLanguage, languagesForExtension } from '@codesift/analysis';
import { CodesiftError } from '@codesift/core';
import type { SearchFilter as StoreFilter } from '@codesift/stores';
import type { SearchFilter } from './types.js';

// Loaded with require(): importing this CommonJS package into an ES module
// makes Node parse it for named exports first, ~2x its load time in every
// cold search (stores/src/sqlite/native.ts has the same for SQLite).
const picomatch = createRequire(import.meta.url)('picomatch') as typeof import('picomatch');

export interface CompiledFilter {
  /** What the stores can do themselves. */
  store: StoreFilter;
  /** Candidate test for what the store filter cannot express; null when nothing is left to check. */
  accepts: ((path: string) => boolean) | null;
  /** True when `accepts` may reject hits the store returned, so sides should over-fetch. */
  lossy: boolean;
}

interface CompiledPattern {
  test: (path: string) => boolean;
  /** Store prefix that every match starts with ('' when none). */
  prefix: string;
  /** Whether `prefix` alone selects exactly the pattern's matches (ignoring the exact-file case). */
  subtree: boolean;
  /** Prefix a store may drop when this pattern excludes: a whole directory ('' when none). */
  excludePrefix: string;
  /** For an extension glob (`*.py`, `**\/*.py`): the languages its files can have; else null. */
  languages: string[] | null;
}

/** `*.py` or `**\/*.py` at any depth: a file-extension glob. */
const EXTENSION_GLOB = /^(?:\*\*\/)?\*(\.[\p{L}\p{N}_+-]+)$/u;

function normalizePattern(raw: string): string {
  let p = raw.trim().replaceAll('\\', '/');
  while (p.startsWith('./')) p = p.slice(2);
  while (p.startsWith('/')) p = p.slice(1);
  return p;
}

function compilePattern(raw: string): CompiledPattern {
  const p = normalizePattern(raw);
  if (p === '' || p === '.') {
    throw new CodesiftError('INVALID_ARGUMENT', `empty path pattern: ${JSON.stringify(raw)}`);
  }
  const scan = picomatch.scan(p);
  if (scan.negated) {
    throw new CodesiftError('INVALID_ARGUMENT', `negated pattern ${JSON.stringify(raw)}`, {
      hint: 'use an exclude pattern (--exclude) instead of a leading !',
    });
  }
  if (!scan.isGlob) {
    const dir = p.endsWith('/') ? p.slice(0, -1) : p;
    const under = `${dir}/`;
    return {
      test: (path) => path === dir || path.startsWith(under),
      prefix: p.endsWith('/') ? under : dir,
      subtree: true,
      excludePrefix: under,
      languages: null,
    };
  }
  let test: (path: string) => boolean;
  try {
    test = picomatch(p, { dot: true, basename: !p.includes('/') });
  } catch (err) {
    throw new CodesiftError('INVALID_ARGUMENT', `invalid glob ${JSON.stringify(raw)}`, {
      cause: err,
    });
  }
  const base = scan.base.replace(/\/+$/, '');
  const ext = EXTENSION_GLOB.exec(p);
  const subtree = base !== '' && scan.glob === '**';
  return {
    test,
    prefix: base === '' ? '' : `${base}/`,
    subtree,
    excludePrefix: subtree ? `${base}/` : '',
    languages: ext ? languagesForExtension(ext[1]!) : null,
  };
}

function knownLanguages(values: readonly string[] | undefined): string[] {
  return (values ?? []).filter((l) => l.trim() !== '').map(checkedLanguage);
}

export function compileFilter(filter: SearchFilter | undefined): CompiledFilter {
  const store: StoreFilter = {};
  // Every entry point's languages (--lang, `lang:`, MCP, gRPC) resolve here: an alias
  // to its id, an unknown name to an error listing the known ones, never to no results.
  const languages = knownLanguages(filter?.languages);
  if (languages.length > 0) store.languages = [...new Set(languages)];
  const include = (filter?.include ?? []).map(compilePattern);
  const exclude = (filter?.exclude ?? []).map(compilePattern);
  // The stores can only keep languages, so dropped ones are checked here, by file extension.
  const dropLanguages = new Set(knownLanguages(filter?.excludeLanguages));
  if (include.length === 0 && exclude.length === 0 && dropLanguages.size === 0) {
    return { store, accepts: null, lossy: false };
  }

  let lossy = dropLanguages.size > 0;
  // A prefix is usable only if every include pattern has one (the store ORs them).
  if (include.length > 0) {
    if (include.every((p) => p.prefix !== '')) {
      store.pathPrefixes = [...new Set(include.map((p) => p.prefix))];
      if (!include.every((p) => p.subtree)) lossy = true;
    } else {
      lossy = true;
      // Extension globs only (`**/*.py`): no prefix, but the languages their files can
      // have narrow what the stores return (a superset: `accepts` still checks the glob).
      const byExtension = include.every((p) => p.languages !== null)
        ? [...new Set(include.flatMap((p) => p.languages!))]
        : null;
      if (byExtension !== null) {
        const kept = store.languages
          ? store.languages.filter((l) => byExtension.includes(l))
          : byExtension;
        if (kept.length > 0) store.languages = kept;
      }
    }
  }
  // An exclude can go down only when it removes a whole directory (`vendor/**`, `vendor`);
  // the exact-file case of a plain path is left to `accepts`.
  const pushed = exclude.filter((p) => p.excludePrefix !== '');
  if (pushed.length > 0) {
    store.excludePathPrefixes = [...new Set(pushed.map((p) => p.excludePrefix))];
  }
  if (pushed.length < exclude.length) lossy = true;

  const accepts = (path: string): boolean =>
    (include.length === 0 || include.some((p) => p.test(path))) &&
    !exclude.some((p) => p.test(path)) &&
    (dropLanguages.size === 0 || !dropLanguages.has(detectLanguage(path)));
  return { store, accepts, lossy };
}
