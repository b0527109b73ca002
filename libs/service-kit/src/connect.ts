// Services start in any order (and before nats-server in a compose file), so
// the first connection is retried instead of failing the process.
import type { NatsAuth } from '@codesift/bus';
import { CodesiftError, errorMessage } from '@codesift/core';
import { connect, errors, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from './log.js';

export interface ConnectOptions {
  name: string;
  /** Tries before giving up; default 30. */
  attempts?: number;
  /** Wait between tries, doubled up to 2 s; default 200 ms. */
  delayMs?: number;
  signal?: AbortSignal;
  log?: Logger;
  /** Credentials (natsAuthFromEnv); none by default. */
  auth?: NatsAuth;
}

export async function connectWithRetry(url: string, opts: ConnectOptions): Promise<NatsConnection> {
  const attempts = Math.max(1, opts.attempts ?? 30);
  let delay = opts.delayMs ?? 200;
  for (let attempt = 1; ; attempt++) {
    try {
      // Once connected, the client reconnects by itself forever: a NATS
      // restart pauses the service rather than ending it.
      return await connect({
        servers: url,
        name: opts.name,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        ...opts.auth,
      });
    } catch (err) {
      // Wrong or missing credentials stay wrong: say so now, not after every retry.
      if (err instanceof errors.AuthorizationError) {
        throw new CodesiftError(
          'INVALID_ARGUMENT',
          `NATS at ${url} refused the credentials: ${errorMessage(err)}`,
          {
            hint: 'set NATS_USER and NATS_PASSWORD (or NATS_TOKEN) to what the server is configured with',
          },
        );
      }
      if (attempt >= attempts || opts.signal?.aborted) throw err;
      opts.log?.warn('nats connect failed, retrying', { url, attempt, error: err });
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(2000, delay * 2);
    }
  }
}
