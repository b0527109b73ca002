import { CodesiftError, type ErrorCode, isCodesiftError } from './errors.js';

/**
 * An error as it crosses a worker-thread boundary (the search pool, the
 * embedding workers): structured clone keeps neither the class nor its
 * fields, so it travels as plain data. A CodesiftError's code and hint
 * survive, and so does the name of any other error (TimeoutError and
 * AbortError, which the gRPC layer maps to DEADLINE_EXCEEDED / CANCELLED).
 */
export interface WireError {
  name: string;
  message: string;
  code?: ErrorCode;
  hint?: string;
}

export function toWire(err: unknown): WireError {
  if (isCodesiftError(err)) {
    return {
      name: err.name,
      message: err.message,
      code: err.code,
      ...(err.hint ? { hint: err.hint } : {}),
    };
  }
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}

/** Rebuilds what the other thread threw, keeping what callers branch on. */
export function fromWire(wire: WireError): Error {
  if (wire.code !== undefined) {
    return new CodesiftError(wire.code, wire.message, wire.hint ? { hint: wire.hint } : undefined);
  }
  const err = new Error(wire.message);
  err.name = wire.name;
  return err;
}
