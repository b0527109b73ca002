/**
 * Synonym tables: plain data mapping a lowercase word to the words code
 * uses for it. The default ships in default-synonyms.ts; a repository's
 * configuration merges its own table over it with mergeSynonymTables.
 */
import { analyze } from '@codesift/analysis';

/** word -> code words for the same thing. Keys lowercase; values single tokens. */
export type SynonymTable = Readonly<Record<string, readonly string[]>>;

export type SynonymMergeMode = 'extend' | 'replace';

/** The analyzed form of a table key or value: its first (whole) term, or '' when none survives. */
function normalizeEntry(word: string): string {
  return analyze(word.trim())[0] ?? '';
}

/**
 * Merges `override` over `base` into a new table. Keys are normalised
 * through the analyzer (so `Search` and `search` are one key). For a key in
 * both: 'extend' (default) appends the override's values to the base's,
 * 'replace' uses the override's alone. An empty array removes the key, so
 * a repository can switch off a default expansion that hurts it. Values are
 * normalised, deduplicated, and never include their own key.
 */
export function mergeSynonymTables(
  base: SynonymTable,
  override: SynonymTable = {},
  mode: SynonymMergeMode = 'extend',
): SynonymTable {
  const out = new Map<string, string[]>();
  const put = (rawKey: string, values: readonly string[], how: SynonymMergeMode): void => {
    const key = normalizeEntry(rawKey);
    if (key === '') return;
    if (values.length === 0) {
      out.delete(key);
      return;
    }
    const list = how === 'extend' ? [...(out.get(key) ?? [])] : [];
    for (const v of values) {
      const n = typeof v === 'string' ? normalizeEntry(v) : '';
      if (n !== '' && n !== key && !list.includes(n)) list.push(n);
    }
    if (list.length > 0) out.set(key, list);
    else out.delete(key);
  };
  for (const [k, v] of Object.entries(base)) if (Array.isArray(v)) put(k, v, 'extend');
  for (const [k, v] of Object.entries(override)) if (Array.isArray(v)) put(k, v, mode);
  return Object.fromEntries(out);
}
