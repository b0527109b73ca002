import { timingSafeEqual } from 'node:crypto';
import { type Metadata, status } from '@grpc/grpc-js';
import { GrpcStatusError } from './errors.js';

/**
 * Checks `authorization: Bearer <token>` metadata. Throws UNAUTHENTICATED
 * (never saying which part was wrong beyond "missing" vs "invalid"). The
 * comparison takes the same time for every wrong token of a given length.
 */
export function checkBearerToken(metadata: Metadata, token: string): void {
  const values = metadata.get('authorization');
  const header = values.length === 1 ? values[0] : undefined;
  if (typeof header !== 'string' || header.length === 0) {
    throw new GrpcStatusError(
      status.UNAUTHENTICATED,
      "missing credentials: send metadata 'authorization: Bearer <token>'",
    );
  }
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match || !sameSecret(match[1]!, token)) {
    throw new GrpcStatusError(status.UNAUTHENTICATED, 'invalid token');
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Metadata carrying a bearer token, for clients. */
export function bearerMetadata(metadata: Metadata, token: string | undefined): Metadata {
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}
