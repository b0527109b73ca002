// Test helper: a loopback OTLP/HTTP collector. It accepts what an exporter
// POSTs to /v1/traces (and /v1/metrics), decodes OTLP JSON into flat span
// records (and the names of the metrics pushed), and keeps protobuf bodies
// raw (their arrival is still observable).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type ReceivedSpanKind =
  | 'unspecified'
  | 'internal'
  | 'server'
  | 'client'
  | 'producer'
  | 'consumer';

export type AttributeValue = string | number | boolean | null | AttributeValue[];

export interface ReceivedSpan {
  serviceName: string | undefined;
  traceId: string;
  spanId: string;
  /** undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  kind: ReceivedSpanKind;
  attributes: Record<string, AttributeValue>;
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
  events: { name: string; attributes: Record<string, AttributeValue> }[];
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
}

export interface ReceivedRequest {
  path: string;
  contentType: string;
  bytes: number;
}

export interface OtlpReceiver {
  /** Base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT: http://127.0.0.1:<port> */
  readonly url: string;
  /** Every span decoded so far (JSON requests), in arrival order. */
  readonly spans: ReceivedSpan[];
  /** Every POST received, decoded or not. */
  readonly requests: ReceivedRequest[];
  /** Each metric pushed over OTLP/JSON, by the service that pushed it. */
  readonly metrics: { serviceName: string | undefined; name: string }[];
  /** Resolves with `spans` once `ready(spans)` holds; rejects after `timeoutMs` (default 10 s). */
  waitFor(ready: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

const KINDS: ReceivedSpanKind[] = [
  'unspecified',
  'internal',
  'server',
  'client',
  'producer',
  'consumer',
];
const STATUS = ['unset', 'ok', 'error'] as const;

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

function anyValue(v: OtlpAnyValue | undefined): AttributeValue {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  return null;
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
  events?: { name: string; attributes?: OtlpKeyValue[] }[];
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
}
interface OtlpTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/** Flattens an OTLP/JSON ExportTraceServiceRequest (ids in hex, as the JSON encoding has them). */
export function decodeOtlpJson(body: OtlpTraceRequest): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = attributes(rs.resource?.attributes)['service.name'];
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const status = s.status ?? {};
        out.push({
          serviceName: typeof service === 'string' ? service : undefined,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ? s.parentSpanId : undefined,
          name: s.name,
          kind: KINDS[s.kind ?? 0] ?? 'unspecified',
          attributes: attributes(s.attributes),
          status: {
            code: STATUS[status.code ?? 0] ?? 'unset',
            ...(status.message ? { message: status.message } : {}),
          },
          events: (s.events ?? []).map((e) => ({
            name: e.name,
            attributes: attributes(e.attributes),
          })),
          startTimeUnixNano: BigInt(s.startTimeUnixNano),
          endTimeUnixNano: BigInt(s.endTimeUnixNano),
        });
      }
    }
  }
  return out;
}

interface OtlpMetricsRequest {
  resourceMetrics?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeMetrics?: { metrics?: { name: string }[] }[];
  }[];
}

function metricNames(
  body: OtlpMetricsRequest,
): { serviceName: string | undefined; name: string }[] {
  const out: { serviceName: string | undefined; name: string }[] = [];
  for (const rm of body.resourceMetrics ?? []) {
    const service = attributes(rm.resource?.attributes)['service.name'];
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        out.push({ serviceName: typeof service === 'string' ? service : undefined, name: m.name });
      }
    }
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

/** Starts the receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: ReceivedRequest[] = [];
  const metrics: { serviceName: string | undefined; name: string }[] = [];
  const waiters = new Set<() => void>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    const contentType = String(req.headers['content-type'] ?? '');
    requests.push({ path, contentType, bytes: body.length });
    if (contentType.startsWith('application/json')) {
      const decoded = JSON.parse(body.toString('utf8')) as unknown;
      if (path === '/v1/metrics') metrics.push(...metricNames(decoded as OtlpMetricsRequest));
      else spans.push(...decodeOtlpJson(decoded as OtlpTraceRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } else {
      // An empty ExportTraceServiceResponse is zero bytes in protobuf.
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    }
    for (const wake of waiters) wake();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    metrics,
    waitFor(ready, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!ready(spans)) return;
          cleanup();
          resolve(spans);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `OTLP receiver: condition not met after ${timeoutMs} ms; got ${spans.length} span(s): ${spans.map((s) => s.name).join(', ')}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
