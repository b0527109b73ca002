/**
 * Hydration: the ranked ids become results, each with its chunk's location
 * and a focused snippet (snippet.ts), and its score parts when explained.
 */
import type { Chunk } from '@codesift/core';
import type { QueryPlan } from './planning/types.js';
import type { Ranked } from './ranking.js';
import type { SearchIndex } from './search-index.js';
import { selectSnippet } from './snippet.js';
import type { SearchResult } from './types.js';

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
): Promise<SearchResult[]> {
  if (ranked.length === 0) return [];
  const missing = ranked.filter((r) => !cache.has(r.id)).map((r) => r.id);
  const byId = new Map(cache);
  if (missing.length > 0) for (const c of await chunks.get(missing)) byId.set(c.id, c);
  const results: SearchResult[] = [];
  for (const f of ranked) {
    // A chunk removed by a concurrent re-index since the sides ran is skipped.
    const c = byId.get(f.id);
    if (!c) continue;
    const snippet = selectSnippet(c.content, c.startLine, terms);
    const r: SearchResult = {
      chunkId: c.id,
      path: c.path,
      startLine: c.startLine,
      endLine: c.endLine,
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
