// A SearchEngine whose every call is an RPC to a codesift gRPC server
// (`codesift serve`, or the cluster's query service), so surfaces written
// against SearchEngine (the MCP bridge, the CLI) work remotely unchanged.
import {
  CodesiftError,
  type ErrorCode,
  errorMessage,
  isCodesiftError,
  type SymbolInfo,
} from '@codesift/core';
import type {
  IndexStatusInfo,
  SearchEngine,
  SearchRequest,
  SearchResponse,
  Snippet,
} from '@codesift/search';
import {
  indexStatusFromProto,
  searchRequestToProto,
  searchResponseFromProto,
  snippetFromProto,
  symbolFromWire,
} from '@codesift/wire';
import { type ServiceError, status } from '@grpc/grpc-js';
import { type CodesiftClient, connectCodesift } from './client.js';
import { MAX_SNIPPET_LINE, MAX_SNIPPET_SPAN } from './search-service.js';
import { MAX_SYMBOL_LIMIT } from './symbol-service.js';

export interface RemoteEngineOptions {
  /** Bearer token the server requires (`codesift serve --token`). */
  token?: string;
  /** Deadline of a search without its own deadlineMs; default 60 s. */
  searchDeadlineMs?: number;
  /** Deadline of every other call (symbols, vocabulary, status, snippets); default 15 s. */
  callDeadlineMs?: number;
  /**
   * Check at connect time that the server answers (GetIndexStatus), so a
   * wrong address, token or missing index fails now, naming the address,
   * rather than at the first tool call. Default false.
   */
  check?: boolean;
}

export const DEFAULT_SEARCH_DEADLINE_MS = 60_000;
export const DEFAULT_CALL_DEADLINE_MS = 15_000;

/** Status codes of ServiceErrors from grpc-js, as a type guard. */
function isServiceError(err: unknown): err is ServiceError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'number' &&
    'details' in err
  );
}

const ERROR_CODES = new Set<string>([
  'ENOENT_ROOT',
  'NOT_A_DIRECTORY',
  'UNREADABLE',
  'INDEX_CORRUPT',
  'INDEX_NOT_FOUND',
  'INDEX_INCOMPATIBLE',
  'PATH_OUTSIDE_ROOT',
  'INVALID_ARGUMENT',
  'MODEL_UNAVAILABLE',
  'TIMEOUT',
  'BUSY',
  'UNAVAILABLE',
  'PERMISSION_DENIED',
  'INTERNAL',
] satisfies ErrorCode[]);

/**
 * Turns a failed call into the CodesiftError a local engine would have
 * thrown. The server sends a CodesiftError's code as `codesift-error-code`
 * trailing metadata and its hint inside the details ("message (hint: ...)",
 * see toServiceError); both are taken back apart here. Failures of the
 * transport itself (unreachable, refused token, deadline) name the address.
 */
export function remoteError(address: string, err: unknown, deadlineMs?: number): CodesiftError {
  if (isCodesiftError(err)) return err;
  if (!isServiceError(err)) {
    return new CodesiftError('INTERNAL', `call to ${address} failed: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const details = err.details || err.message;
  const sent = err.metadata?.get('codesift-error-code')[0];
  if (typeof sent === 'string' && ERROR_CODES.has(sent)) {
    const m = /^([\s\S]*) \(hint: ([\s\S]*)\)$/.exec(details);
    return new CodesiftError(sent as ErrorCode, m ? m[1]! : details, {
      ...(m ? { hint: m[2]! } : {}),
      cause: err,
    });
  }
  switch (err.code) {
    case status.UNAVAILABLE:
      return new CodesiftError(
        'UNAVAILABLE',
        `cannot reach the query service at ${address}: ${details}`,
        {
          hint: 'check the address, and that `codesift serve` (or the cluster query service) is running there',
          cause: err,
        },
      );
    case status.UNAUTHENTICATED:
      return new CodesiftError('INVALID_ARGUMENT', `${address} refused the call: ${details}`, {
        hint: 'pass the server’s token with --token or CODESIFT_TOKEN',
        cause: err,
      });
    case status.DEADLINE_EXCEEDED:
      return new CodesiftError(
        'TIMEOUT',
        deadlineMs === undefined
          ? `no answer from ${address} in time`
          : `no answer from ${address} within ${deadlineMs} ms`,
        { cause: err },
      );
    case status.CANCELLED:
      return new CodesiftError('INTERNAL', `the call to ${address} was cancelled`, { cause: err });
    case status.INVALID_ARGUMENT:
      return new CodesiftError('INVALID_ARGUMENT', details, { cause: err });
    case status.RESOURCE_EXHAUSTED:
      return new CodesiftError('BUSY', `${address}: ${details}`, { cause: err });
    case status.UNIMPLEMENTED:
      return new CodesiftError('INTERNAL', `${address} does not support this call: ${details}`, {
        hint: 'the server is older than this client; upgrade it',
        cause: err,
      });
    default:
      return new CodesiftError('INTERNAL', `call to ${address} failed: ${details}`, { cause: err });
  }
}

/**
 * A SearchEngine over a codesift gRPC server at `address` (`host:port`).
 * Each method is one RPC with its own deadline; errors come back as the
 * CodesiftError the server's engine threw (same code, message and hint).
 * `close` closes the channel, never the server's index.
 */
export async function connectRemoteEngine(
  address: string,
  options: RemoteEngineOptions = {},
): Promise<SearchEngine> {
  if (address.trim() === '') {
    throw new CodesiftError('INVALID_ARGUMENT', 'the gRPC address is empty', {
      hint: 'pass host:port, e.g. 127.0.0.1:50051',
    });
  }
  const engine = new RemoteEngine(
    address,
    connectCodesift(address, options.token ? { token: options.token } : {}),
    options.searchDeadlineMs ?? DEFAULT_SEARCH_DEADLINE_MS,
    options.callDeadlineMs ?? DEFAULT_CALL_DEADLINE_MS,
  );
  if (options.check) {
    try {
      await engine.status();
    } catch (err) {
      await engine.close();
      throw err;
    }
  }
  return engine;
}

class RemoteEngine implements SearchEngine {
  private closed = false;

  constructor(
    private readonly address: string,
    private readonly client: CodesiftClient,
    private readonly searchDeadlineMs: number,
    private readonly callDeadlineMs: number,
  ) {}

  async search(request: SearchRequest): Promise<SearchResponse> {
    this.ensureOpen();
    if (request.deadlineMs !== undefined && !(request.deadlineMs > 0)) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `deadlineMs must be positive, got ${request.deadlineMs}`,
      );
    }
    // The server gives its engine slightly less than the call's deadline
    // (see engineBudgetMs), so a slow side is dropped and the answer still arrives.
    const deadlineMs = request.deadlineMs ?? this.searchDeadlineMs;
    const message = searchRequestToProto(request);
    const res = await this.call(deadlineMs, (opts) =>
      this.client.search.search(message, { ...opts, ...signalOf(request.signal) }),
    ).catch((err: unknown) => {
      // A caller that aborted sees its own reason, as from the local engine.
      if (request.signal?.aborted) throw request.signal.reason;
      throw err;
    });
    return searchResponseFromProto(request, res);
  }

  async lookupSymbol(
    name: string,
    options: { kind?: string; limit?: number } = {},
  ): Promise<SymbolInfo[]> {
    this.ensureOpen();
    const limit = symbolLimit(options.limit);
    const res = await this.call(this.callDeadlineMs, (opts) =>
      this.client.symbols.lookupSymbol({ name, kind: options.kind ?? '', limit }, opts),
    );
    return res.symbols.map(symbolFromWire);
  }

  async vocabulary(
    options: { prefix?: string; limit?: number; terms?: string[] } = {},
  ): Promise<{ name: string; count: number }[]> {
    this.ensureOpen();
    const limit = symbolLimit(options.limit);
    const terms = options.terms ?? [];
    const res = await this.call(this.callDeadlineMs, (opts) =>
      this.client.symbols.getVocabulary({ prefix: options.prefix ?? '', limit, terms }, opts),
    );
    return res.entries.map((e) => ({ name: e.name, count: Number(e.count) }));
  }

  async status(): Promise<IndexStatusInfo> {
    this.ensureOpen();
    const res = await this.call(this.callDeadlineMs, (opts) =>
      this.client.index.getIndexStatus({}, opts),
    );
    return indexStatusFromProto(res);
  }

  /**
   * Clamps the range the way the local engine does (start at least 1, end
   * not before start) before sending it, since the server refuses what the
   * local engine would quietly clamp; the engine then clamps to the file.
   */
  async getSnippet(path: string, startLine: number, endLine: number): Promise<Snippet> {
    this.ensureOpen();
    if (typeof path !== 'string' || path.trim() === '') {
      throw new CodesiftError('INVALID_ARGUMENT', 'the path is empty');
    }
    if (!Number.isFinite(startLine) || !Number.isFinite(endLine)) {
      throw new CodesiftError('INVALID_ARGUMENT', `invalid line range ${startLine}-${endLine}`);
    }
    const start = Math.min(Math.max(1, Math.floor(startLine)), MAX_SNIPPET_LINE);
    const end = Math.min(
      Math.max(start, Math.floor(endLine)),
      start + MAX_SNIPPET_SPAN - 1,
      MAX_SNIPPET_LINE,
    );
    const res = await this.call(this.callDeadlineMs, (opts) =>
      this.client.search.getSnippet({ path, range: { startLine: start, endLine: end } }, opts),
    );
    return snippetFromProto(res);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.client.close();
  }

  private ensureOpen(): void {
    if (this.closed) throw new CodesiftError('INVALID_ARGUMENT', 'the search engine is closed');
  }

  private async call<T>(
    deadlineMs: number,
    fn: (opts: { deadlineMs: number }) => Promise<T>,
  ): Promise<T> {
    try {
      return await fn({ deadlineMs });
    } catch (err) {
      throw remoteError(this.address, err, deadlineMs);
    }
  }
}

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}

/** A symbol call's limit as the server takes it: 0 for its default, else clamped to 1..MAX_SYMBOL_LIMIT. */
function symbolLimit(limit: number | undefined): number {
  return limit === undefined ? 0 : Math.min(MAX_SYMBOL_LIMIT, Math.max(1, Math.floor(limit)));
}
