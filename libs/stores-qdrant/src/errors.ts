import { CodesiftError } from '@codesift/core';

/** What the REST client throws for a non-2xx answer (ApiError of its fetch layer). */
interface HttpFailure {
  status: number;
  statusText?: string;
  data?: unknown;
}

function isHttpFailure(err: unknown): err is HttpFailure {
  return typeof err === 'object' && err !== null && typeof (err as HttpFailure).status === 'number';
}

/** Qdrant puts its reason in `status.error` of the body. */
function serverReason(f: HttpFailure): string {
  const data = f.data as { status?: { error?: unknown } } | string | undefined;
  if (typeof data === 'object' && data !== null && typeof data.status?.error === 'string')
    return data.status.error;
  if (typeof data === 'string' && data.length > 0) return data.slice(0, 500);
  return f.statusText ?? '';
}

/** The system error code (ECONNREFUSED, ENOTFOUND, ...) somewhere in a fetch failure's causes. */
function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Turns whatever the client threw into a CodesiftError a user can act on: which
 * operation, which server, what Qdrant said, and where the address comes from.
 */
export function toCodesiftError(err: unknown, action: string, url: string): CodesiftError {
  if (err instanceof CodesiftError) return err;
  const where = `Qdrant at ${url}`;
  const urlHint = `check that Qdrant is running and QDRANT_URL points at its REST port (now ${url})`;
  if (isHttpFailure(err)) {
    const reason = serverReason(err);
    const message = `${action} failed: ${where} answered HTTP ${err.status}${reason ? `: ${reason}` : ''}`;
    // The server's own check of vector sizes, e.g. a collection made for another model.
    if (err.status === 400 && /dimension/i.test(reason))
      return new CodesiftError('INVALID_ARGUMENT', message, { cause: err });
    if (err.status === 401 || err.status === 403)
      return new CodesiftError('INTERNAL', message, {
        hint: 'set QDRANT_API_KEY to a key this server accepts',
        cause: err,
      });
    return new CodesiftError('INTERNAL', message, { hint: urlHint, cause: err });
  }
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'QdrantClientTimeoutError' || name === 'AbortError' || name === 'TimeoutError')
    return new CodesiftError('TIMEOUT', `${action} timed out waiting for ${where}`, {
      hint: urlHint,
      cause: err,
    });
  // fetch says only "fetch failed"; the reason (refused, bad port, DNS) is in its cause.
  const cause = (err as { cause?: unknown } | null)?.cause;
  const detail =
    networkCode(err) ??
    (cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err));
  return new CodesiftError('INTERNAL', `${action} failed: cannot reach ${where} (${detail})`, {
    hint: urlHint,
    cause: err,
  });
}
