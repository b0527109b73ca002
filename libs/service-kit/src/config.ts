// Service configuration comes from the environment only, so the same binary
// runs under `npm run cluster`, docker-compose and Kubernetes unchanged.
import path from 'node:path';
import { type NatsAuth, natsAuthFromEnv } from '@codesift/bus';
import { CodesiftError } from '@codesift/core';

export interface ServiceConfig {
  /** Name in logs, NATS connection name and job events (e.g. `chunker`). */
  readonly service: string;
  /** NATS_URL; default nats://127.0.0.1:4222 (a dev nats-server on this machine). */
  readonly natsUrl: string;
  /** NATS_USER + NATS_PASSWORD, or NATS_TOKEN (natsAuthFromEnv); empty: none. */
  readonly natsAuth: NatsAuth;
  /** CODESIFT_INDEX: absolute path of the SQLite index file, when the service needs one. */
  readonly indexPath: string | undefined;
  /**
   * CODESIFT_PULL_EXPIRES_MS: how long one pull waits for work. Shutdown
   * waits for the pending pull, so short pulls mean a quick Ctrl-C; default 1000.
   */
  readonly pullExpiresMs: number;
  /** CODESIFT_CONNECT_ATTEMPTS: connection tries before giving up; default 30. */
  readonly connectAttempts: number;
  /**
   * CODESIFT_ACK_WAIT_MS: how long a delivered message may go unacked before
   * the server hands it to another replica — so how long work held by a
   * crashed replica waits. Unset: the bus's per-queue defaults (60–120 s).
   * Handlers heartbeat at a third of it, so a short value does not cut off
   * slow work, it only costs more heartbeats.
   */
  readonly ackWaitMs: number | undefined;
  /**
   * CODESIFT_HEALTH_PORT: serve /livez and /readyz (health.ts) on this port,
   * on CODESIFT_HEALTH_HOST (default 0.0.0.0, for the kubelet's probes).
   * Unset: no health server (several stages share one machine in `npm run cluster`).
   */
  readonly health: { host: string; port: number } | undefined;
}

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

function port(env: NodeJS.ProcessEnv, key: string): number | undefined {
  const raw = env[key]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `${key} must be a port from 0 to 65535, not '${raw}'`,
    );
  }
  return n;
}

function positiveInt(env: NodeJS.ProcessEnv, key: string, fallback: number): number {
  const raw = env[key]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    throw new CodesiftError('INVALID_ARGUMENT', `${key} must be a positive integer, not '${raw}'`);
  }
  return n;
}

export function readServiceConfig(
  service: string,
  env: NodeJS.ProcessEnv = process.env,
): ServiceConfig {
  const index = env.CODESIFT_INDEX?.trim();
  const healthPort = port(env, 'CODESIFT_HEALTH_PORT');
  return {
    service,
    natsUrl: env.NATS_URL?.trim() || DEFAULT_NATS_URL,
    natsAuth: natsAuthFromEnv(env),
    indexPath: index ? path.resolve(index) : undefined,
    pullExpiresMs: positiveInt(env, 'CODESIFT_PULL_EXPIRES_MS', 1000),
    connectAttempts: positiveInt(env, 'CODESIFT_CONNECT_ATTEMPTS', 30),
    ackWaitMs: env.CODESIFT_ACK_WAIT_MS?.trim()
      ? positiveInt(env, 'CODESIFT_ACK_WAIT_MS', 0)
      : undefined,
    health:
      healthPort === undefined
        ? undefined
        : { host: env.CODESIFT_HEALTH_HOST?.trim() || '0.0.0.0', port: healthPort },
  };
}

/** The index path, or a clear error for a service that cannot run without one. */
export function requireIndexPath(config: ServiceConfig): string {
  if (!config.indexPath) {
    throw new CodesiftError('INVALID_ARGUMENT', `${config.service} needs CODESIFT_INDEX`, {
      hint: 'set CODESIFT_INDEX to the SQLite index file, e.g. /data/index.db',
    });
  }
  return config.indexPath;
}
