/**
 * Hydration: the ranked ids become results, each with its chunk's location
 * and a focused snippet (snippet.ts), and its score parts when explained.
 * The chunk list (not the file list) is turned into units first: widened to
 * whole definitions, touching hits merged, a few per file (units.ts).
 */
import type { Chunk } from '@codesift/core';
import type { QueryPlan } from './planning/types.js';
import type { Ranked } from './ranking.js';
import type { SearchIndex } from './search-index.js';
import { selectSnippet } from './snippet.js';
import type { SearchResult } from './types.js';
import { toUnits, type UnitDefinition, unitPaths } from './units.js';

/** How the chunk list becomes units; null for the file list, which keeps each file's best chunk. */
export interface UnitOptions {
  symbols: SearchIndex['symbols'];
  limit: number;
}

/** The words snippets are focused on: the keyword side's terms, synonyms left out. */
export function snippetTerms(plan: QueryPlan): Set<string> {
  return new Set(plan.keyword.terms.filter((t) => t.source !== 'synonym').map((t) => t.term));
}

/** `cache` holds chunks already read (for anchors); the rest are fetched in one call. */
export async function hydrate(
  chunks: SearchIndex['chunks'],
  ranked: readonly Ranked[],
  terms: ReadonlySet<string>,
  explain: boolean,
  cache: ReadonlyMap<string, Chunk>,
  units: UnitOptions | null = null,
): Promise<SearchResult[]> {
  if (ranked.length === 0) return [];
  const missing = ranked.filter((r) => !cache.has(r.id)).map((r) => r.id);
  const byId = new Map(cache);
  if (missing.length > 0) for (const c of await chunks.get(missing)) byId.set(c.id, c);
  // A chunk removed by a concurrent re-index since the sides ran is skipped.
  let hits = ranked.flatMap((f) => {
    const c = byId.get(f.id);
    return c
      ? [
          {
            f,
            c,
            path: c.path,
            startLine: c.startLine,
            endLine: c.endLine,
            symbol: c.symbol,
            kind: c.kind as string,
          },
        ]
      : [];
  });
  if (units !== null) {
    const reach = unitPaths(hits, units.limit);
    const defs = await definitionsByPath(
      units.symbols,
      hits.filter((h) => reach.has(h.path)).map((h) => h.c),
    );
    hits = toUnits(hits, (p) => defs.get(p) ?? [], units.limit);
  }
  const results: SearchResult[] = [];
  for (const { f, c, startLine, endLine } of hits) {
    const snippet = selectSnippet(c.content, c.startLine, terms);
    const r: SearchResult = {
      chunkId: c.id,
      path: c.path,
      startLine,
      endLine,
      symbol: c.symbol,
      kind: c.kind,
      language: c.language,
      score: f.score,
      snippet: snippet.text,
      snippetStartLine: snippet.startLine,
    };
    if (explain) {
      r.explain = {
        keyword: f.keyword,
        keywordRank: f.keywordRank,
        vector: f.vector,
        vectorRank: f.vectorRank,
        fused: f.score,
        base: f.fused,
        focusMultiplier: f.focusMultiplier,
      };
      if (f.definitionBoost > 0) r.explain.boost = f.definitionBoost;
      if (f.anchorBoost > 0) {
        r.explain.anchorBoost = f.anchorBoost;
        r.explain.anchors = f.anchorsMatched;
      }
    }
    results.push(r);
  }
  return results;
}

/**
 * The definitions of the files whose hits carry a symbol path, for widening
 * (only the files that can reach the cut are passed: unitPaths).
 * A store without `inFile` (the cluster's symbol service) gives none: hits
 * are still merged and capped, just not widened.
 */
async function definitionsByPath(
  symbols: SearchIndex['symbols'],
  chunks: readonly Chunk[],
): Promise<Map<string, readonly UnitDefinition[]>> {
  const out = new Map<string, readonly UnitDefinition[]>();
  if (!symbols.inFile) return out;
  const paths = [...new Set(chunks.filter((c) => c.symbol !== null).map((c) => c.path))];
  try {
    if (symbols.inFiles) return await symbols.inFiles(paths);
    const lists = await Promise.all(paths.map((p) => symbols.inFile!.call(symbols, p)));
    for (const [i, p] of paths.entries()) out.set(p, lists[i]!);
  } catch {
    // Widening is a convenience: without the symbols the hits stay as the chunks are.
    return new Map();
  }
  return out;
}
