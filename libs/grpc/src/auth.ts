import { bearerMatches } from '@codesift/core';
import { type Metadata, status } from '@grpc/grpc-js';
import { GrpcStatusError } from './errors.js';

/**
 * Checks `authorization: Bearer <token>` metadata. Throws UNAUTHENTICATED
 * (never saying which part was wrong beyond "missing" vs "invalid"). The
 * comparison is the one every codesift server uses (bearerMatches): it
 * takes the same time whatever the guess.
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
  if (!bearerMatches(header.trim(), token)) {
    throw new GrpcStatusError(status.UNAUTHENTICATED, 'invalid token');
  }
}

/** Metadata carrying a bearer token, for clients. */
export function bearerMetadata(metadata: Metadata, token: string | undefined): Metadata {
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}
