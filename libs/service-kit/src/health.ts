// Liveness and readiness of a pipeline stage over HTTP, for container
// probes (Kubernetes httpGet, compose's healthcheck through
// deploy/healthcheck.mjs). "A process exists" says nothing about a stage
// whose NATS connection is gone or whose consumer loop ended, so:
//
//   GET /livez   200 while every consumer loop runs and the NATS connection
//                is not closed for good (the client reconnects by itself, so
//                a NATS outage alone is no reason to restart the process).
//   GET /readyz  200 when, in addition, the server answers right now and
//                still holds every durable consumer the stage pulls from.
//
// Both answer JSON {ok, checks: {name: "ok" | reason}}; 503 when not ok.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Consumption, WORK_QUEUES, type WorkQueue } from '@codesift/bus';
import { errorMessage } from '@codesift/core';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

export const LIVENESS_PATH = '/livez';
export const READINESS_PATH = '/readyz';

/** How long one readiness round trip to NATS may take before it counts as down. */
const PROBE_TIMEOUT_MS = 2000;

export interface HealthReport {
  ok: boolean;
  /** Check name -> "ok" or why not. */
  checks: Record<string, string>;
}

export interface HealthTarget {
  nc: NatsConnection;
  consumers: { queue: WorkQueue; consumption: Consumption }[];
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function report(checks: Record<string, string>): HealthReport {
  return { ok: Object.values(checks).every((v) => v === 'ok'), checks };
}

/** What /livez answers: local state only, no round trip. */
export function liveness(target: HealthTarget): HealthReport {
  const checks: Record<string, string> = {
    nats: target.nc.isClosed() ? 'connection closed' : 'ok',
  };
  for (const { queue, consumption } of target.consumers) {
    checks[`consumer:${queue}`] = consumption.running ? 'ok' : 'consumer loop ended';
  }
  return report(checks);
}

/** What /readyz answers: liveness, plus the server holding each consumer now. */
export async function readiness(target: HealthTarget): Promise<HealthReport> {
  const live = liveness(target);
  if (!live.ok) return live;
  const checks = { ...live.checks };
  try {
    // A flush is a PING/PONG: it fails (or hangs, hence the timeout) while
    // the client is disconnected or reconnecting.
    await withTimeout(target.nc.flush(), PROBE_TIMEOUT_MS, 'NATS ping');
    const jsm = await withTimeout(
      jetstreamManager(target.nc, { timeout: PROBE_TIMEOUT_MS }),
      PROBE_TIMEOUT_MS,
      'JetStream API',
    );
    for (const { queue } of target.consumers) {
      const def = WORK_QUEUES[queue];
      try {
        await withTimeout(jsm.consumers.info(def.stream, def.durable), PROBE_TIMEOUT_MS, 'info');
      } catch (err) {
        checks[`consumer:${queue}`] = `${def.durable} on ${def.stream}: ${errorMessage(err)}`;
      }
    }
  } catch (err) {
    checks.nats = errorMessage(err);
  }
  return report(checks);
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves /livez and /readyz for `target` on host:port (port 0 picks one). */
export async function startHealthServer(
  target: HealthTarget,
  host: string,
  port: number,
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://health').pathname;
    const answer = (r: HealthReport) => {
      res.writeHead(r.ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify(r));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === LIVENESS_PATH) {
      answer(liveness(target));
    } else if (path === READINESS_PATH) {
      readiness(target).then(answer, (err) => answer(report({ health: errorMessage(err) })));
    } else {
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end(`not found; ${LIVENESS_PATH} or ${READINESS_PATH}\n`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
