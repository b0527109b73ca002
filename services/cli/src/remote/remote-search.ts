// `codesift search --remote <host:port>`: the same request over gRPC
// (codesift.v1.SearchService, as `codesift serve` and the cluster's query
// service answer it) through the remote engine of @codesift/grpc, whose one
// request/response mapping is shared with `codesift mcp --remote`, so the
// renderers print exactly what local mode prints.
import { CodesiftError } from '@codesift/core';
import { connectRemoteEngine } from '@codesift/grpc';
import type { SearchEngine, SearchRequest, SearchResponse } from '@codesift/search';

const CALL_DEADLINE_MS = 60_000;
const STATUS_DEADLINE_MS = 10_000;

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
  const engine = await connectRemoteEngine(address, {
    ...(token ? { token } : {}),
    searchDeadlineMs: CALL_DEADLINE_MS,
    callDeadlineMs: STATUS_DEADLINE_MS,
  });
  try {
    const response = await engine.search(request).catch((err: unknown) => {
      throw withClusterHint(err);
    });
    return { response, root: await rootOf(engine) };
  } finally {
    await engine.close();
  }
}

/** An unreachable server most often means the development cluster is not up: say how to start it. */
function withClusterHint(err: unknown): unknown {
  if (
    err instanceof CodesiftError &&
    err.code === 'UNAVAILABLE' &&
    /cannot reach/.test(err.message)
  ) {
    return new CodesiftError(err.code, err.message, {
      hint: 'start the development cluster with `npm run cluster` (or `codesift serve`) and pass the gRPC address it prints',
      cause: err,
    });
  }
  return err;
}

async function rootOf(engine: SearchEngine): Promise<string | null> {
  try {
    return (await engine.status()).root;
  } catch {
    return null;
  }
}
