// Services start in any order (and before nats-server in a compose file), so
// the first connection is retried instead of failing the process.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from './log.js';

export interface ConnectOptions {
  name: string;
  /** Tries before giving up; default 30. */
  attempts?: number;
  /** Wait between tries, doubled up to 2 s; default 200 ms. */
  delayMs?: number;
  signal?: AbortSignal;
  log?: Logger;
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
      });
    } catch (err) {
      if (attempt >= attempts || opts.signal?.aborted) throw err;
      opts.log?.warn('nats connect failed, retrying', { url, attempt, error: err });
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(2000, delay * 2);
    }
  }
}
