/**
 * Maps @elastic/elasticsearch failures to CodesiftError, so callers see one
 * error type with a hint whatever store they run on. A missing index is
 * INDEX_NOT_FOUND (the user can create it); an unreachable cluster or an
 * HTTP error is INTERNAL with what the server said; a timed-out request is
 * TIMEOUT.
 */
import { CodesiftError, errorMessage } from '@codesift/core';

/**
 * Client errors are recognised by `name`, not `instanceof`: @elastic/transport
 * ships separate CommonJS and ESM builds with separate classes, and a
 * Connection class from CommonJS code (a custom one, or the mock) throws the
 * other build's errors.
 */
function clientErrorName(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}

/** The `error.type` / `error.reason` of an Elasticsearch error body, when it has one. */
function describeBody(body: unknown): { type?: string; reason?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'string') return { reason: error };
  if (typeof error !== 'object' || error === null) return {};
  const e = error as { type?: unknown; reason?: unknown };
  const out: { type?: string; reason?: string } = {};
  if (typeof e.type === 'string') out.type = e.type;
  if (typeof e.reason === 'string') out.reason = e.reason;
  return out;
}

/** The `error.type` of a ResponseError's body, if `err` is one. */
export function responseErrorType(err: unknown): string | undefined {
  if (clientErrorName(err) !== 'ResponseError') return undefined;
  return describeBody((err as { body?: unknown }).body).type;
}

/** `err` (anything a client call threw) as a CodesiftError naming the operation and index. */
export function toCodesiftError(err: unknown, op: string, index: string): CodesiftError {
  if (err instanceof CodesiftError) return err;
  const name = clientErrorName(err);
  if (name === 'ResponseError') {
    const r = err as { statusCode?: number; body?: unknown };
    const status = r.statusCode ?? 0;
    const { type, reason } = describeBody(r.body);
    if (status === 404 && type === 'index_not_found_exception') {
      return new CodesiftError('INDEX_NOT_FOUND', `Elasticsearch index ${index} does not exist`, {
        hint: 'create it first (ensureIndex(), or open the store with create: true), or check the index name',
        cause: err,
      });
    }
    const what = [type, reason].filter(Boolean).join(': ') || errorMessage(err);
    return new CodesiftError(
      'INTERNAL',
      `Elasticsearch ${op} on index ${index} failed with HTTP ${status}: ${what}`,
      {
        hint:
          status === 401 || status === 403
            ? 'check the credentials (API key or user) and their privileges on the index'
            : 'check the cluster health and its logs (GET _cluster/health)',
        cause: err,
      },
    );
  }
  if (name === 'TimeoutError') {
    return new CodesiftError('TIMEOUT', `Elasticsearch ${op} on index ${index} timed out`, {
      hint: 'the cluster may be overloaded; raise requestTimeout or retry later',
      cause: err,
    });
  }
  if (name === 'ConnectionError' || name === 'NoLivingConnectionsError') {
    return new CodesiftError(
      'INTERNAL',
      `cannot reach Elasticsearch for ${op} on index ${index}: ${errorMessage(err)}`,
      {
        hint: 'is Elasticsearch running, and does the node URL (ES_URL) point at it?',
        cause: err,
      },
    );
  }
  return new CodesiftError(
    'INTERNAL',
    `Elasticsearch ${op} on index ${index} failed: ${errorMessage(err)}`,
    { cause: err },
  );
}

/** Runs one client call, rethrowing any failure as a CodesiftError. */
export async function call<T>(op: string, index: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toCodesiftError(err, op, index);
  }
}
