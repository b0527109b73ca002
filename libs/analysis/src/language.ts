import path from 'node:path';
import { CodesiftError } from '@codesift/core';
import { LANGUAGES } from './languages.js';

/** `key -> language` over every entry's `field`; a key claimed by two languages is a mistake in the table. */
function index(field: 'extensions' | 'fileNames'): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const [id, entry] of Object.entries(LANGUAGES)) {
    for (const key of entry[field] ?? []) {
      const other = out.get(key);
      if (other !== undefined) throw new Error(`${key} is both ${other} and ${id} in LANGUAGES`);
      out.set(key, id);
    }
  }
  return out;
}

const BY_EXTENSION = index('extensions');
const BY_FILE_NAME = index('fileNames');

/** Language id for a path, from its well-known file name or its extension; 'text' otherwise. */
export function detectLanguage(filePath: string): string {
  const base = path.posix.basename(filePath);
  const byName = BY_FILE_NAME.get(base);
  if (byName) return byName;
  const ext = path.posix.extname(base).toLowerCase();
  return BY_EXTENSION.get(ext) ?? 'text';
}

/**
 * Every language a file whose name ends with `ext` (with the dot, as a glob
 * `*.ext` matches it) can be detected as: the extension's, or 'text', plus
 * those of the well-known file names with that ending (`CMakeLists.txt` is
 * cmake, not text). A superset, so a language filter built from it never
 * drops a file the glob keeps.
 */
export function languagesForExtension(ext: string): string[] {
  const out = new Set([detectLanguage(`x${ext}`)]);
  for (const [name, id] of BY_FILE_NAME) if (name.endsWith(ext)) out.add(id);
  return [...out].sort();
}

/**
 * What users type for a language (`--lang`, `lang:` in a query, MCP
 * `language`) besides the ids themselves, from the table's `aliases`: the
 * one map every entry point resolves through (resolveLanguage).
 */
const LANGUAGE_ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries(LANGUAGES).flatMap(([id, entry]) => (entry.aliases ?? []).map((a) => [a, id])),
);

/** Every id detectLanguage returns, sorted: what a language filter can match. */
export const KNOWN_LANGUAGES: readonly string[] = [
  ...new Set([...BY_EXTENSION.values(), ...BY_FILE_NAME.values(), 'text']),
].sort();
const KNOWN = new Set(KNOWN_LANGUAGES);

/** The language id a user's spelling names (an id or an alias, any case); undefined for none. */
export function resolveLanguage(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  const id = LANGUAGE_ALIASES.get(v) ?? v;
  return KNOWN.has(id) ? id : undefined;
}

/** resolveLanguage, or an INVALID_ARGUMENT error that lists the known languages. */
export function checkedLanguage(value: string): string {
  const id = resolveLanguage(value);
  if (id !== undefined) return id;
  throw new CodesiftError(
    'INVALID_ARGUMENT',
    `unknown language '${value.trim()}'; known languages: ${KNOWN_LANGUAGES.join(', ')}`,
    { hint: 'aliases such as golang, py, js, ts, rs, c++, cs, rb, kt, sh are accepted too' },
  );
}
