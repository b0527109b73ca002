/**
 * Payload fields and filters. Qdrant's keyword index matches whole values only
 * (servers up to 1.18 have no prefix match at all; 1.19 added `match.prefix`, but
 * the compose file and many deployments run older servers), so a path-prefix
 * filter is turned into an exact match: every point stores `path_prefixes`, all
 * character prefixes of its path, in a keyword index. `path:src/near` then is
 * `path_prefixes == "src/near"`, exact and served by the index, for prefixes that
 * end at a directory boundary (`src/`) and for those that do not (`src/near`,
 * `src` matching `srcx/b.ts`), which the store contract requires.
 * The cost is one keyword value per path character (a 40-character path stores 40).
 */
import type { SearchFilter } from '@codesift/stores';
import type { Schemas } from '@qdrant/js-client-rest';

export type QdrantFilter = Schemas['Filter'];
export type QdrantCondition = Schemas['Condition'];

/** Payload keys; also the payload indexes created with the collection (all keyword). */
export const PAYLOAD = {
  chunkId: 'chunk_id',
  path: 'path',
  language: 'language',
  pathPrefixes: 'path_prefixes',
} as const;

export const INDEXED_FIELDS = [PAYLOAD.path, PAYLOAD.language, PAYLOAD.pathPrefixes] as const;

/** Every non-empty character prefix of `path`, shortest first, the path itself last. */
export function pathPrefixes(path: string): string[] {
  // By code point, so a prefix never ends inside a surrogate pair (invalid UTF-8 on the wire).
  const out: string[] = [];
  let acc = '';
  for (const ch of path) {
    acc += ch;
    out.push(acc);
  }
  return out;
}

/** `match.any` must hold unique items (the schema says `uniqueItems`). */
function unique(values: readonly string[] | undefined): string[] {
  return [...new Set(values ?? [])];
}

function anyOf(key: string, values: string[]): QdrantCondition {
  return { key, match: { any: values } };
}

/**
 * The Qdrant filter for a port filter: `undefined` when nothing is filtered,
 * `null` when nothing can match (an excluded empty prefix excludes every path).
 * Empty lists mean "no restriction", as in the port.
 */
export function toQdrantFilter(filter: SearchFilter | undefined): QdrantFilter | undefined | null {
  const must: QdrantCondition[] = [];
  const mustNot: QdrantCondition[] = [];
  const languages = unique(filter?.languages);
  if (languages.length > 0) must.push(anyOf(PAYLOAD.language, languages));
  const include = unique(filter?.pathPrefixes);
  // The empty prefix matches every path, so it lifts the include restriction.
  if (include.length > 0 && !include.includes('')) must.push(anyOf(PAYLOAD.pathPrefixes, include));
  const exclude = unique(filter?.excludePathPrefixes);
  if (exclude.includes('')) return null;
  if (exclude.length > 0) mustNot.push(anyOf(PAYLOAD.pathPrefixes, exclude));
  if (must.length === 0 && mustNot.length === 0) return undefined;
  const out: QdrantFilter = {};
  if (must.length > 0) out.must = must;
  if (mustNot.length > 0) out.must_not = mustNot;
  return out;
}

/** Points of any of these files (exact paths). */
export function pathsFilter(paths: string[]): QdrantFilter {
  return { must: [anyOf(PAYLOAD.path, unique(paths))] };
}
