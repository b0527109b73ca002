import { errorMessage, isCodesiftError } from '@codesift/core';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';

/** A failure a handler raises with an explicit gRPC status (validation, auth, unknown job). */
export class GrpcStatusError extends Error {
  readonly code: status;
  constructor(code: status, message: string) {
    super(message);
    this.name = 'GrpcStatusError';
    this.code = code;
  }
}

export function invalidArgument(message: string): GrpcStatusError {
  return new GrpcStatusError(status.INVALID_ARGUMENT, message);
}

/** gRPC status for each CodesiftError code; anything not listed is INTERNAL. */
const CODE_TO_STATUS: Record<string, status> = {
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  PATH_OUTSIDE_ROOT: status.INVALID_ARGUMENT,
  ENOENT_ROOT: status.INVALID_ARGUMENT,
  NOT_A_DIRECTORY: status.INVALID_ARGUMENT,
  // The server is up but has nothing to answer from: the caller must index first.
  INDEX_NOT_FOUND: status.FAILED_PRECONDITION,
  INDEX_INCOMPATIBLE: status.FAILED_PRECONDITION,
  INDEX_CORRUPT: status.DATA_LOSS,
  MODEL_UNAVAILABLE: status.UNAVAILABLE,
  TIMEOUT: status.DEADLINE_EXCEEDED,
  // Retryable later: the client should back off, not fix its request.
  BUSY: status.RESOURCE_EXHAUSTED,
  UNAVAILABLE: status.UNAVAILABLE,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
};

/**
 * Turns anything a handler threw into a ServiceError. The message travels as
 * the status details; a CodesiftError's hint is appended so remote users see
 * the same advice as local ones, and its code is sent as `codesift-error-code`
 * trailing metadata for programs.
 */
export function toServiceError(err: unknown): Partial<ServiceError> {
  if (err instanceof GrpcStatusError) return { code: err.code, details: err.message };
  if (isCodesiftError(err)) {
    const metadata = new Metadata();
    metadata.set('codesift-error-code', err.code);
    const details = err.hint ? `${err.message} (hint: ${err.hint})` : err.message;
    return { code: CODE_TO_STATUS[err.code] ?? status.INTERNAL, details, metadata };
  }
  // What an engine throws when the call's signal fires (see call-context.ts).
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError')
    return { code: status.DEADLINE_EXCEEDED, details: 'deadline exceeded' };
  if (name === 'AbortError') return { code: status.CANCELLED, details: 'the call was cancelled' };
  return { code: status.INTERNAL, details: errorMessage(err) };
}
