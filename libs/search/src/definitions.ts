/**
 * Exact-identifier boost: when the query names a symbol (`addEdge`,
 * `parse_amount`, `Graph.addEdge`), the chunk holding that symbol's
 * definition should outrank the many chunks that merely use it. BM25 alone
 * prefers the users (a test calling `addEdge` three times beats the class
 * defining it once), so definitions found in the symbol index get a fixed
 * bonus on top of the fused score (see the engine for its size). Only
 * candidates the sides already returned can be boosted.
 */

/** Most identifiers looked up per query: a pasted log names hundreds. */
export const MAX_QUERY_IDENTIFIERS = 8;

const WORD = /[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::)[\p{L}_$][\p{L}\p{N}_$]*)*/gu;

/**
 * Code-shaped words of the query: the whole query when it is a single
 * word, otherwise words with an inner capital (camelCase, PascalCase with
 * more than one hump), an underscore or `$`, or a qualified name (`a.b`,
 * `a::b`). Plain prose words are left to BM25.
 */
export function queryIdentifiers(query: string, max = MAX_QUERY_IDENTIFIERS): string[] {
  const trimmed = query.trim();
  const out: string[] = [];
  const seen = new Set<string>();
  let single: boolean | undefined;
  // Lazily: a pasted 20 KB log has thousands of words, and the first `max` identifiers suffice.
  for (const m of trimmed.matchAll(WORD)) {
    if (out.length >= max) break;
    const w = m[0];
    // The first word is the whole query exactly when the query is one word.
    single ??= w === trimmed;
    const codeShaped =
      single ||
      /[\p{Ll}\p{N}]\p{Lu}/u.test(w) ||
      /[_$]/.test(w.replace(/^_+|_+$/g, '')) ||
      w.includes('.') ||
      w.includes('::');
    if (!codeShaped || w.length < 2) continue;
    const key = w.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(w);
  }
  return out;
}

export interface Definition {
  path: string;
  startLine: number;
}

export interface ChunkRange {
  path: string;
  startLine: number;
  endLine: number;
}

/** Whether the chunk holds the first line of one of the definitions. */
export function holdsDefinition(chunk: ChunkRange, defs: readonly Definition[]): boolean {
  return defs.some(
    (d) => d.path === chunk.path && d.startLine >= chunk.startLine && d.startLine <= chunk.endLine,
  );
}
