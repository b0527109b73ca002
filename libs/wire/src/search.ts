// The SearchService messages and the engine's types, both ways: the server
// side (a request in, the engine's response out) and the client side (the
// remote engine), written once so a remote caller gets exactly what a local
// one does. Only the types come from @codesift/search; at run time this
// needs no engine.
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { CodesiftError, DEFAULT_LIMIT } from '@codesift/core';
import {
  Focus,
  FusionMethod,
  type GetIndexStatusResponse,
  type GetIndexStatusResponseSchema,
  type GetSnippetResponse,
  GetSnippetResponseSchema,
  type SearchRequest as ProtoSearchRequest,
  type SearchResponse as ProtoSearchResponse,
  type SearchRequestSchema,
  SearchResponseSchema,
} from '@codesift/proto';
import type {
  FusionMode,
  IndexStatusInfo,
  QueryPlan,
  SearchRequest,
  SearchResponse,
  SearchResult,
  Snippet,
} from '@codesift/search';

/**
 * A SearchService request as the engine's request. The ablation switches
 * map to the engine's feature options (no_expansion -> expansion: false,
 * ...); an unset focus lets the planner infer it; an unset limit is
 * DEFAULT_LIMIT. `rewrite` (optional bool) is the LLM rewrite's mode: unset
 * 'auto', true 'on', false 'off'; the rewrite runs only where the server
 * has a model configured. `variants` (optional) is the query variants' count,
 * unset the server's default. Bounds on the request (its size, the limit) are the
 * server's to check before; an enum value this version does not know is
 * INVALID_ARGUMENT.
 */
export function searchRequestFromProto(req: ProtoSearchRequest): SearchRequest {
  const out: SearchRequest = {
    query: req.query,
    limit: req.limit === 0 ? DEFAULT_LIMIT : req.limit,
    collapseFiles: req.collapseFiles,
    explain: req.explain,
    // The plan travels (as plan_json) only with explain; no need to build it into the response.
    includePlan: req.explain,
  };
  const fusion = fusionFromProto(req.fusion);
  if (fusion) out.fusion = fusion;
  const focus = focusFromProto(req.focus);
  if (focus) out.focus = focus;
  if (req.noExpansion) out.expansion = false;
  if (req.rewrite !== undefined) out.rewrite = req.rewrite ? 'on' : 'off';
  if (req.variants !== undefined) out.variants = req.variants;
  if (req.noAnchor) out.anchors = false;
  if (req.noFocus) out.focusScoring = false;
  const f = req.filter;
  if (f && (f.languages.length > 0 || f.includePaths.length > 0 || f.excludePaths.length > 0)) {
    out.filter = {};
    if (f.languages.length > 0) out.filter.languages = [...f.languages];
    if (f.includePaths.length > 0) out.filter.include = [...f.includePaths];
    if (f.excludePaths.length > 0) out.filter.exclude = [...f.excludePaths];
  }
  return out;
}

function fusionFromProto(fusion: FusionMethod): SearchRequest['fusion'] {
  if (fusion === FusionMethod.UNSPECIFIED) return undefined;
  const mode = FUSION_FROM_PROTO.get(fusion);
  if (mode === undefined)
    throw new CodesiftError('INVALID_ARGUMENT', `unknown fusion method ${fusion}`);
  return mode;
}

function focusFromProto(focus: Focus): SearchRequest['focus'] {
  if (focus === Focus.UNSPECIFIED) return undefined;
  const named = FOCUS_FROM_PROTO.get(focus);
  if (named === undefined) throw new CodesiftError('INVALID_ARGUMENT', `unknown focus ${focus}`);
  return named;
}

/**
 * The engine's response as a SearchService response. Score parts and the
 * plan (plan_json) are attached only when explain is asked for, keeping
 * ordinary responses small; otherwise plan_json is "{}". Absent ranks are 0
 * (ranks are 1-based), an absent boost or anchor boost 0, an absent focus
 * multiplier 1; base is optional (presence kept).
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
      snippetStartLine: r.snippetStartLine,
      stale: r.stale === true,
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
              ...(r.explain.base === undefined ? {} : { base: r.explain.base }),
              boost: r.explain.boost ?? 0,
              anchors: r.explain.anchors ?? [],
            }
          : undefined,
    })),
    planJson: JSON.stringify(plan ?? {}),
    timings: Object.entries(res.timings).map(([stage, millis]) => ({ stage, millis })),
    degraded: [...res.degraded],
    totalChunks: protoCount(res.totalChunks),
    fusion: FUSION_TO_PROTO[res.fusion] ?? FusionMethod.UNSPECIFIED,
  });
}

const FUSION_TO_PROTO: Record<FusionMode, FusionMethod> = {
  rrf: FusionMethod.RRF,
  linear: FusionMethod.LINEAR,
  adaptive: FusionMethod.ADAPTIVE,
};
const FOCUS_TO_PROTO: Record<NonNullable<SearchRequest['focus']>, Focus> = {
  implementation: Focus.IMPLEMENTATION,
  tests: Focus.TESTS,
  all: Focus.ALL,
};
// The same tables read backwards, so each mapping is written once.
const FUSION_FROM_PROTO = new Map(
  Object.entries(FUSION_TO_PROTO).map(([k, v]) => [v, k as FusionMode]),
);
const FOCUS_FROM_PROTO = new Map(
  Object.entries(FOCUS_TO_PROTO).map(([k, v]) => [v, k as NonNullable<SearchRequest['focus']>]),
);

/**
 * The client side of searchRequestFromProto: an engine request as a
 * SearchService request. Only what the protocol carries goes out (query,
 * limit, filter, fusion, focus, collapse, explain, the ablation switches,
 * the rewrite mode: 'auto' travels as unset);
 * the server's own configuration decides the rest. `explain` overrides the
 * request's flag (a caller may want the plan without showing score parts).
 */
export function searchRequestToProto(
  request: SearchRequest,
  options: { explain?: boolean } = {},
): MessageInitShape<typeof SearchRequestSchema> {
  const f = request.filter;
  return {
    query: request.query,
    limit: request.limit ?? DEFAULT_LIMIT,
    collapseFiles: request.collapseFiles ?? false,
    explain: options.explain ?? request.explain ?? false,
    fusion: request.fusion ? FUSION_TO_PROTO[request.fusion] : FusionMethod.UNSPECIFIED,
    focus: request.focus ? FOCUS_TO_PROTO[request.focus] : Focus.UNSPECIFIED,
    noExpansion: request.expansion === false,
    noAnchor: request.anchors === false,
    noFocus: request.focusScoring === false,
    ...(request.rewrite === undefined || request.rewrite === 'auto'
      ? {}
      : { rewrite: request.rewrite === 'on' }),
    ...(request.variants === undefined ? {} : { variants: request.variants }),
    ...(f
      ? {
          filter: {
            languages: f.languages ?? [],
            includePaths: f.include ?? [],
            excludePaths: f.exclude ?? [],
          },
        }
      : {}),
  };
}

/**
 * The client side of searchResponseToProto: a SearchService response as the
 * engine's SearchResponse, so remote callers render exactly what local ones
 * do. Score parts and the plan are kept only when the request asked to
 * explain. Servers that predate `snippet_start_line` and `fusion` leave them
 * unset: the chunk's first line and the plan's combiner stand in.
 */
export function searchResponseFromProto(
  request: SearchRequest,
  res: ProtoSearchResponse,
): SearchResponse {
  let plan: QueryPlan | undefined;
  try {
    const parsed = JSON.parse(res.planJson || '{}') as Partial<QueryPlan>;
    if (parsed.fusion) plan = parsed as QueryPlan;
  } catch {
    plan = undefined;
  }
  const results: SearchResult[] = res.results.map((r) => {
    const startLine = r.range?.startLine ?? 0;
    const endLine = r.range?.endLine ?? startLine;
    const out: SearchResult = {
      chunkId: r.chunkId,
      path: r.path,
      startLine,
      endLine,
      symbol: r.symbol === '' ? null : r.symbol,
      kind: r.kind,
      language: r.language,
      score: r.score,
      snippet: r.snippet,
      snippetStartLine: r.snippetStartLine || startLine,
    };
    // Present only when true, as the local engine sets it.
    if (r.stale) out.stale = true;
    if (request.explain && r.explain) {
      const e = r.explain;
      out.explain = {
        keyword: e.keywordRank === 0 ? null : e.keyword,
        keywordRank: e.keywordRank === 0 ? null : e.keywordRank,
        vector: e.vectorRank === 0 ? null : e.vector,
        vectorRank: e.vectorRank === 0 ? null : e.vectorRank,
        fused: e.fused,
        // Absent parts stay absent, as the local engine leaves them out.
        ...(e.base === undefined ? {} : { base: e.base }),
        ...(e.boost ? { boost: e.boost } : {}),
        ...(e.anchorBoost ? { anchorBoost: e.anchorBoost, anchors: [...e.anchors] } : {}),
        focusMultiplier: e.focusMultiplier,
      };
    }
    return out;
  });
  return {
    query: request.query,
    results,
    fusion: fusionFromResponse(res.fusion) ?? plan?.fusion.combiner ?? 'linear',
    timings: Object.fromEntries(res.timings.map((t) => [t.stage, t.millis])),
    degraded: [...res.degraded],
    totalChunks: Number(res.totalChunks),
    ...(request.explain && plan ? { plan } : {}),
  };
}

/** An older or newer server's unknown method is left out, not an error. */
function fusionFromResponse(fusion: FusionMethod): FusionMode | undefined {
  return FUSION_FROM_PROTO.get(fusion);
}

export function snippetToProto(s: Snippet): GetSnippetResponse {
  return create(GetSnippetResponseSchema, {
    path: s.path,
    range: { startLine: s.startLine, endLine: s.endLine },
    language: s.language,
    text: s.text,
    stale: s.stale === true,
  });
}

export function snippetFromProto(s: GetSnippetResponse): Snippet {
  return {
    path: s.path,
    startLine: s.range?.startLine ?? 0,
    endLine: s.range?.endLine ?? 0,
    language: s.language,
    text: s.text,
    ...(s.stale ? { stale: true } : {}),
  };
}

/** A count as a proto uint64: whole and never negative. */
export function protoCount(n: number): bigint {
  return BigInt(Math.max(0, Math.trunc(n)));
}

/** The engine's status as GetIndexStatus fields (the job, if any, is the caller's to add). */
export function indexStatusToProto(
  info: IndexStatusInfo,
): Omit<MessageInitShape<typeof GetIndexStatusResponseSchema>, 'job' | '$typeName'> {
  return {
    root: info.root ?? '',
    repositories: info.repositories,
    files: protoCount(info.files),
    chunks: protoCount(info.chunks),
    symbols: protoCount(info.symbols),
    vectors: protoCount(info.vectors),
    embedder: info.embedder ?? '',
    dimensions: info.dimensions ?? 0,
    updatedAtMs: BigInt(Math.trunc(info.updatedAt)),
    indexPath: info.indexPath,
    bytes: protoCount(info.bytes),
  };
}

/**
 * GetIndexStatus as the engine's status. Proto3 has no null: an empty root
 * or embedder and zero dimensions read as null, as the local engine reports
 * an index without them.
 */
export function indexStatusFromProto(s: GetIndexStatusResponse): IndexStatusInfo {
  return {
    root: s.root === '' ? null : s.root,
    repositories: [...s.repositories],
    indexPath: s.indexPath,
    files: Number(s.files),
    chunks: Number(s.chunks),
    symbols: Number(s.symbols),
    vectors: Number(s.vectors),
    embedder: s.embedder === '' ? null : s.embedder,
    dimensions: s.dimensions === 0 ? null : s.dimensions,
    updatedAt: Number(s.updatedAtMs),
    bytes: Number(s.bytes),
  };
}
