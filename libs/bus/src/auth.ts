// NATS credentials from the environment, for every process that connects to
// the cluster's server (stages, the query service, `codesift index --remote`).
// Compose and Kubernetes set them from the one secrets file / Secret; a
// server started without authorization ignores them.
import { CodesiftError } from '@codesift/core';

/** The part of the client's ConnectionOptions that authenticates. */
export type NatsAuth = { user: string; pass: string } | { token: string } | Record<string, never>;

function value(env: NodeJS.ProcessEnv, key: string): string | undefined {
  const v = env[key]?.trim();
  return v ? v : undefined;
}

/**
 * NATS_USER + NATS_PASSWORD, or NATS_TOKEN; neither: no credentials (a dev
 * server on loopback). Half a pair, or both kinds, is an INVALID_ARGUMENT:
 * the server would refuse the connection with a less helpful message.
 */
export function natsAuthFromEnv(env: NodeJS.ProcessEnv = process.env): NatsAuth {
  const user = value(env, 'NATS_USER');
  const pass = value(env, 'NATS_PASSWORD');
  const token = value(env, 'NATS_TOKEN');
  if (token !== undefined && (user !== undefined || pass !== undefined)) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      'set NATS_TOKEN or NATS_USER/NATS_PASSWORD, not both',
      {
        hint: 'the server is configured with one of them (deploy/nats-auth.conf uses user and password)',
      },
    );
  }
  if (token !== undefined) return { token };
  if (user === undefined && pass === undefined) return {};
  if (user === undefined || pass === undefined) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `NATS_${user === undefined ? 'USER' : 'PASSWORD'} is missing: NATS_USER and NATS_PASSWORD go together`,
      { hint: 'set both from the secrets file (see deploy/README.md)' },
    );
  }
  return { user, pass };
}

/** How a connection authenticates, for logs (never the secret). */
export function describeNatsAuth(auth: NatsAuth): string {
  if ('token' in auth) return 'token';
  if ('user' in auth) return `user ${auth.user}`;
  return 'none';
}
