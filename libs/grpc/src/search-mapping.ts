import { create } from '@bufbuild/protobuf';
import type { SymbolInfo } from '@codesift/core';
import {
  type CodeSymbol,
  CodeSymbolSchema,
  Focus,
  FusionMethod,
  type SearchRequest as ProtoSearchRequest,
  type SearchResponse as ProtoSearchResponse,
  SearchResponseSchema,
} from '@codesift/proto';
import type { SearchRequest, SearchResponse } from '@codesift/search';
import { invalidArgument } from './errors.js';

/** The most results one request may ask for (the engine's own cap). */
export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 10;
/** Pasted stack traces and bug reports run to several KB; beyond this a query is a mistake. */
export const MAX_QUERY_CHARS = 64 * 1024;
const MAX_FILTER_ENTRIES = 64;

/**
 * Validates a SearchService request and translates it to the engine's request.
 * The ablation switches map to the engine's feature options (no_expansion ->
 * expansion: false, ...); an unset focus lets the planner infer it. `rewrite`
 * is accepted but not acted on: the local engine has no LLM rewrite.
 */
export function searchRequestFromProto(req: ProtoSearchRequest): SearchRequest {
  if (req.query.trim().length === 0) throw invalidArgument('query must not be empty');
  if (req.query.length > MAX_QUERY_CHARS) {
    throw invalidArgument(
      `query is ${req.query.length} characters; at most ${MAX_QUERY_CHARS} are accepted`,
    );
  }
  if (req.limit > MAX_LIMIT) {
    throw invalidArgument(`limit must be at most ${MAX_LIMIT}, got ${req.limit}`);
  }
  const out: SearchRequest = {
    query: req.query,
    limit: req.limit === 0 ? DEFAULT_LIMIT : req.limit,
    collapseFiles: req.collapseFiles,
    explain: req.explain,
  };
  const fusion = fusionFromProto(req.fusion);
  if (fusion) out.fusion = fusion;
  const focus = focusFromProto(req.focus);
  if (focus) out.focus = focus;
  if (req.noExpansion) out.expansion = false;
  if (req.noAnchor) out.anchors = false;
  if (req.noFocus) out.focusScoring = false;
  const f = req.filter;
  if (f && (f.languages.length > 0 || f.includePaths.length > 0 || f.excludePaths.length > 0)) {
    for (const [name, list] of [
      ['languages', f.languages],
      ['include_paths', f.includePaths],
      ['exclude_paths', f.excludePaths],
    ] as const) {
      if (list.length > MAX_FILTER_ENTRIES) {
        throw invalidArgument(
          `filter.${name} has ${list.length} entries; at most ${MAX_FILTER_ENTRIES}`,
        );
      }
      if (list.some((s) => s.trim().length === 0)) {
        throw invalidArgument(`filter.${name} must not contain empty strings`);
      }
    }
    out.filter = {};
    if (f.languages.length > 0) out.filter.languages = [...f.languages];
    if (f.includePaths.length > 0) out.filter.include = [...f.includePaths];
    if (f.excludePaths.length > 0) out.filter.exclude = [...f.excludePaths];
  }
  return out;
}

function fusionFromProto(fusion: FusionMethod): SearchRequest['fusion'] {
  switch (fusion) {
    case FusionMethod.UNSPECIFIED:
      return undefined;
    case FusionMethod.RRF:
      return 'rrf';
    case FusionMethod.LINEAR:
      return 'linear';
    case FusionMethod.ADAPTIVE:
      return 'adaptive';
    default:
      throw invalidArgument(`unknown fusion method ${fusion}`);
  }
}

function focusFromProto(focus: Focus): SearchRequest['focus'] {
  switch (focus) {
    case Focus.UNSPECIFIED:
      return undefined;
    case Focus.IMPLEMENTATION:
      return 'implementation';
    case Focus.TESTS:
      return 'tests';
    case Focus.ALL:
      return 'all';
    default:
      throw invalidArgument(`unknown focus ${focus}`);
  }
}

/**
 * The engine's response as a SearchService response. Score parts and the
 * plan (plan_json) are attached only when explain is asked for, keeping
 * ordinary responses small; otherwise plan_json is "{}". Absent ranks are 0
 * (ranks are 1-based), an absent anchor boost 0 and focus multiplier 1.
 */
export function searchResponseToProto(
  res: SearchResponse,
  options: { explain: boolean },
): ProtoSearchResponse {
  const plan = options.explain ? res.plan : undefined;
  return create(SearchResponseSchema, {
    results: res.results.map((r) => ({
      path: r.path,
      range: { startLine: r.startLine, endLine: r.endLine },
      symbol: r.symbol ?? '',
      kind: r.kind,
      language: r.language,
      score: r.score,
      snippet: r.snippet,
      chunkId: r.chunkId,
      explain:
        options.explain && r.explain
          ? {
              keyword: r.explain.keyword ?? 0,
              vector: r.explain.vector ?? 0,
              fused: r.explain.fused,
              anchorBoost: r.explain.anchorBoost ?? 0,
              focusMultiplier: r.explain.focusMultiplier ?? 1,
              keywordRank: r.explain.keywordRank ?? 0,
              vectorRank: r.explain.vectorRank ?? 0,
            }
          : undefined,
    })),
    planJson: JSON.stringify(plan ?? {}),
    timings: Object.entries(res.timings).map(([stage, millis]) => ({ stage, millis })),
    degraded: [...res.degraded],
    totalChunks: BigInt(Math.max(0, Math.trunc(res.totalChunks))),
  });
}

export function symbolToProto(s: SymbolInfo): CodeSymbol {
  return create(CodeSymbolSchema, {
    id: s.id,
    name: s.name,
    qualifiedName: s.qualifiedName,
    kind: s.kind,
    path: s.path,
    language: s.language,
    range: { startLine: s.startLine, endLine: s.endLine },
    parent: s.parent ?? '',
    signature: s.signature,
    doc: s.doc,
  });
}
