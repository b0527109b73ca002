/**
 * Errors a user can act on. `code` is stable (for --json output and tests),
 * `hint` says what to do about it.
 */
export type ErrorCode =
  | 'ENOENT_ROOT'
  | 'NOT_A_DIRECTORY'
  | 'UNREADABLE'
  | 'INDEX_CORRUPT'
  | 'INDEX_NOT_FOUND'
  | 'INDEX_INCOMPATIBLE'
  | 'PATH_OUTSIDE_ROOT'
  | 'INVALID_ARGUMENT'
  | 'MODEL_UNAVAILABLE'
  | 'TIMEOUT'
  /** Too much work queued already: try again later (gRPC RESOURCE_EXHAUSTED). */
  | 'BUSY'
  /** A service this one depends on is down or unreachable: retry later (gRPC UNAVAILABLE). */
  | 'UNAVAILABLE'
  /** The caller may not do this here (an index root outside the scan roots): gRPC PERMISSION_DENIED. */
  | 'PERMISSION_DENIED'
  | 'INTERNAL';

export class CodesiftError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CodesiftError';
    this.code = code;
    this.hint = options?.hint;
  }
}

export function isCodesiftError(err: unknown): err is CodesiftError {
  return err instanceof CodesiftError;
}

/** Message of any thrown value, for logs and reports. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
