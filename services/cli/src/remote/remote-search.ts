// `codesift search --remote <host:port>`: the same request over gRPC
// (codesift.v1.SearchService, as `codesift serve` and the cluster's query
// service answer it), mapped back to the engine's SearchResponse so the
// renderers print exactly what local mode prints.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError } from '@codesift/core';
import { type CodesiftClient, connectCodesift } from '@codesift/grpc';
import { Focus, FusionMethod, type SearchResponse as ProtoSearchResponse } from '@codesift/proto';
import type { QueryPlan, SearchRequest, SearchResponse, SearchResult } from '@codesift/search';

const FUSION: Record<string, FusionMethod> = {
  rrf: FusionMethod.RRF,
  linear: FusionMethod.LINEAR,
  adaptive: FusionMethod.ADAPTIVE,
};
const FOCUS: Record<string, Focus> = {
  implementation: Focus.IMPLEMENTATION,
  tests: Focus.TESTS,
  all: Focus.ALL,
};

const CALL_DEADLINE_MS = 60_000;

export interface RemoteSearchResult {
  response: SearchResponse;
  /** The indexed root as the server sees it; null when unknown. */
  root: string | null;
}

export async function searchRemote(
  address: string,
  request: SearchRequest,
  token: string | undefined,
): Promise<RemoteSearchResult> {
  const client = connectCodesift(address, { token });
  try {
    // explain is always asked for: the plan carries the fusion method the summary names.
    const res = await call(address, () =>
      client.search.search(
        {
          query: request.query,
          limit: request.limit ?? 10,
          collapseFiles: request.collapseFiles ?? false,
          explain: true,
          fusion: request.fusion ? FUSION[request.fusion] : FusionMethod.UNSPECIFIED,
          focus: request.focus ? FOCUS[request.focus] : Focus.UNSPECIFIED,
          noExpansion: request.expansion === false,
          noAnchor: request.anchors === false,
          noFocus: request.focusScoring === false,
          filter: request.filter
            ? {
                languages: request.filter.languages ?? [],
                includePaths: request.filter.include ?? [],
                excludePaths: request.filter.exclude ?? [],
              }
            : undefined,
        },
        { deadlineMs: CALL_DEADLINE_MS },
      ),
    );
    const root = await rootOf(client);
    return { response: fromProto(request, res, root), root };
  } finally {
    client.close();
  }
}

async function call<T>(address: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err as { code?: number; details?: string; message?: string };
    const details = e.details || e.message || String(err);
    switch (e.code) {
      case 14: // UNAVAILABLE
        throw new CodesiftError('INTERNAL', `cannot reach the query service at ${address}`, {
          hint: 'start the development cluster with `npm run cluster` (or `codesift serve`) and pass the gRPC address it prints',
        });
      case 16: // UNAUTHENTICATED
        throw new CodesiftError('INVALID_ARGUMENT', `${address} refused the call: ${details}`, {
          hint: 'pass the server’s token with --token or CODESIFT_TOKEN',
        });
      case 4: // DEADLINE_EXCEEDED
        throw new CodesiftError(
          'TIMEOUT',
          `no answer from ${address} within ${CALL_DEADLINE_MS} ms`,
        );
      default:
        throw new CodesiftError('INTERNAL', `search at ${address} failed: ${details}`);
    }
  }
}

async function rootOf(client: CodesiftClient): Promise<string | null> {
  try {
    const s = await client.index.getIndexStatus({}, { deadlineMs: 10_000 });
    return s.root || null;
  } catch {
    return null;
  }
}

function fromProto(
  request: SearchRequest,
  res: ProtoSearchResponse,
  root: string | null,
): SearchResponse {
  let plan: QueryPlan | undefined;
  try {
    const parsed = JSON.parse(res.planJson || '{}') as Partial<QueryPlan>;
    if (parsed.fusion) plan = parsed as QueryPlan;
  } catch {
    plan = undefined;
  }
  const lines = new FileLines(root);
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
      snippetStartLine: lines.locate(r.path, r.snippet, startLine, endLine),
    };
    if (request.explain && r.explain) {
      const e = r.explain;
      out.explain = {
        keyword: e.keywordRank === 0 ? null : e.keyword,
        keywordRank: e.keywordRank === 0 ? null : e.keywordRank,
        vector: e.vectorRank === 0 ? null : e.vector,
        vectorRank: e.vectorRank === 0 ? null : e.vectorRank,
        fused: e.fused,
        ...(e.anchorBoost ? { anchorBoost: e.anchorBoost } : {}),
        focusMultiplier: e.focusMultiplier,
      };
    }
    return out;
  });
  return {
    query: request.query,
    results,
    fusion: plan?.fusion.combiner ?? 'linear',
    timings: Object.fromEntries(res.timings.map((t) => [t.stage, t.millis])),
    degraded: [...res.degraded],
    totalChunks: Number(res.totalChunks),
    ...(request.explain && plan ? { plan } : {}),
  };
}

/**
 * The response does not carry the snippet's first line. When the indexed
 * files are readable here (the development cluster), it is found in the
 * chunk's range; otherwise the chunk's first line stands in for it.
 */
class FileLines {
  private readonly cache = new Map<string, string[] | null>();
  constructor(private readonly root: string | null) {}

  locate(rel: string, snippet: string, start: number, end: number): number {
    const first = snippet.split(/\r?\n/)[0]?.replace(/…$/, '') ?? '';
    const lines = this.read(rel);
    if (!lines || first.trim() === '') return start;
    for (let n = start; n <= Math.min(end, lines.length); n++) {
      if (lines[n - 1]!.startsWith(first)) return n;
    }
    return start;
  }

  private read(rel: string): string[] | null {
    if (this.root === null) return null;
    let lines = this.cache.get(rel);
    if (lines === undefined) {
      try {
        lines = readFileSync(path.join(this.root, rel), 'utf8').split(/\r?\n/);
      } catch {
        lines = null;
      }
      this.cache.set(rel, lines);
    }
    return lines;
  }
}
