/**
 * A loopback stand-in for a Qdrant server: every request is validated against
 * Qdrant's OpenAPI schema (see openapi-validator.ts) and refused with a
 * Qdrant-style 400 when it does not conform, so a malformed request fails the
 * test that made it. Valid requests run against small in-memory semantics:
 * collections, payload indexes, upsert, delete by ids or filter, exact count,
 * and brute-force search with must / should / must_not filters of match and
 * has_id conditions.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadValidator, type RequestValidator } from './openapi-validator.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The spec's operation id, when the request matched one. */
  operationId?: string;
  status: number;
  /** Why the fake refused it (status >= 400). */
  error?: string;
}

type Payload = Record<string, unknown>;

interface FakePoint {
  id: string | number;
  vector: number[];
  payload: Payload;
}

export interface FakeCollection {
  size: number;
  distance: string;
  body: unknown;
  indexes: Map<string, unknown>;
  points: Map<string, FakePoint>;
}

export interface FakeQdrantOptions {
  /** Default: loadValidator() (the published spec; QDRANT_OPENAPI_SPEC overrides its path). */
  validator?: RequestValidator;
  /**
   * Refuse filters on fields without a payload index, as Qdrant's strict mode
   * does. Default true: a missing index is a silent full scan on a real server.
   */
  requireIndexedFilters?: boolean;
  /**
   * The key the server is configured with (QDRANT__SERVICE__API_KEY): every
   * request must carry it in the `api-key` header (or as a bearer token),
   * else 401, as Qdrant answers.
   */
  apiKey?: string;
  /** Scripted faults: return an HTTP status and message to answer with instead. */
  fault?: (req: RecordedRequest) => { status: number; error: string } | undefined;
}

export interface FakeQdrant {
  url: string;
  validator: RequestValidator;
  requests: RecordedRequest[];
  collections: Map<string, FakeCollection>;
  /** Requests of one operation id, in order. */
  calls(operationId: string): RecordedRequest[];
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function pointKey(id: unknown): string {
  if (typeof id === 'number') return `n:${id}`;
  if (typeof id === 'string' && UUID.test(id)) return `u:${id.toLowerCase()}`;
  throw new HttpError(400, `Format error: bad point id ${JSON.stringify(id)}`);
}

function list<T>(x: T | T[] | null | undefined): T[] {
  if (x === null || x === undefined) return [];
  return Array.isArray(x) ? x : [x];
}

function normalize(v: number[]): number[] {
  const n = Math.hypot(...v);
  return n === 0 ? v : v.map((x) => x / n);
}

interface FilterShape {
  must?: unknown;
  should?: unknown;
  must_not?: unknown;
  min_should?: unknown;
}

function filterKeys(f: FilterShape | null | undefined, out: Set<string>): Set<string> {
  if (!f) return out;
  for (const c of [...list(f.must), ...list(f.should), ...list(f.must_not)] as FilterShape[]) {
    if (typeof (c as { key?: unknown }).key === 'string') out.add((c as { key: string }).key);
    else filterKeys(c, out);
  }
  return out;
}

function conditionHolds(c: unknown, p: FakePoint): boolean {
  const hasId = (c as { has_id?: unknown[] }).has_id;
  if (Array.isArray(hasId)) return hasId.some((id) => pointKey(id) === pointKey(p.id));
  const payload = p.payload;
  const fc = c as { key?: string; match?: { value?: unknown; any?: unknown[] } | null };
  if (typeof fc.key !== 'string') return filterHolds(c as FilterShape, p);
  const raw = payload[fc.key];
  const values = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw];
  const m = fc.match;
  if (m && 'value' in m) return values.includes(m.value);
  if (m && Array.isArray(m.any)) return m.any.some((x) => values.includes(x));
  throw new HttpError(
    400,
    `fake Qdrant implements only match.value and match.any conditions, got ${JSON.stringify(c)}`,
  );
}

function filterHolds(f: FilterShape | null | undefined, p: FakePoint): boolean {
  if (!f) return true;
  if (f.min_should) throw new HttpError(400, 'fake Qdrant does not implement min_should');
  const should = list(f.should);
  return (
    list(f.must).every((c) => conditionHolds(c, p)) &&
    (should.length === 0 || should.some((c) => conditionHolds(c, p))) &&
    !list(f.must_not).some((c) => conditionHolds(c, p))
  );
}

function pickPayload(payload: Payload, withPayload: unknown): Payload | null {
  if (withPayload === true) return payload;
  if (Array.isArray(withPayload))
    return Object.fromEntries(withPayload.filter((k) => k in payload).map((k) => [k, payload[k]]));
  return null;
}

/** The fields of the request bodies the fake reads, after validation. */
interface RequestBody {
  vectors?: { size?: unknown; distance: string };
  field_name: string;
  field_schema?: unknown;
  points?: FakePoint[];
  filter?: FilterShape | null;
  query?: unknown;
  limit?: number | null;
  offset?: number | null;
  score_threshold?: number | null;
  with_payload?: unknown;
  prefetch?: unknown;
  using?: unknown;
  lookup_from?: unknown;
}

/** The key a request presents: the `api-key` header, or `Authorization: Bearer <key>`. */
function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers['api-key'];
  if (typeof header === 'string') return header;
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  return bearer?.[1];
}

export async function startFakeQdrant(opts: FakeQdrantOptions = {}): Promise<FakeQdrant> {
  const validator = opts.validator ?? loadValidator();
  const requireIndexed = opts.requireIndexedFilters ?? true;
  const collections = new Map<string, FakeCollection>();
  const requests: RecordedRequest[] = [];

  function collection(name: string): FakeCollection {
    const c = collections.get(name);
    if (!c) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return c;
  }

  function checkFilter(c: FakeCollection, filter: FilterShape | null | undefined): void {
    if (!requireIndexed) return;
    for (const key of filterKeys(filter, new Set())) {
      if (!c.indexes.has(key))
        throw new HttpError(400, `Bad request: Index required but not found for "${key}"`);
    }
  }

  function checkDim(c: FakeCollection, v: unknown): number[] {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'number'))
      throw new HttpError(400, 'fake Qdrant implements only unnamed dense vectors');
    if (v.length !== c.size)
      throw new HttpError(
        400,
        `Wrong input: Vector dimension error: expected dim: ${c.size}, got ${v.length}`,
      );
    return c.distance === 'Cosine' ? normalize(v) : v;
  }

  // The body already passed schema validation, so these fields have their spec types.
  function handle(op: string, params: Record<string, string>, body: RequestBody): unknown {
    const name = params.collection_name ?? '';
    switch (op) {
      case 'root':
        return { title: 'qdrant - vector search engine (codesift fake)', version: '1.19.0' };
      case 'collection_exists':
        return { exists: collections.has(name) };
      case 'create_collection': {
        if (collections.has(name))
          throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
        const v = body?.vectors;
        if (!v || typeof v.size !== 'number')
          throw new HttpError(
            400,
            'fake Qdrant implements only collections with one unnamed vector',
          );
        collections.set(name, {
          size: v.size,
          distance: v.distance,
          body,
          indexes: new Map(),
          points: new Map(),
        });
        return true;
      }
      case 'get_collection': {
        const c = collection(name);
        return {
          status: 'green',
          optimizer_status: 'ok',
          segments_count: 1,
          points_count: c.points.size,
          config: { params: { vectors: { size: c.size, distance: c.distance } } },
          payload_schema: Object.fromEntries(
            [...c.indexes].map(([k, s]) => [k, { data_type: s, points: c.points.size }]),
          ),
        };
      }
      case 'delete_collection':
        return collections.delete(name);
      case 'create_field_index':
        collection(name).indexes.set(body.field_name, body.field_schema ?? null);
        return { operation_id: 0, status: 'completed' };
      case 'upsert_points': {
        const c = collection(name);
        if (!Array.isArray(body?.points))
          throw new HttpError(400, 'fake Qdrant implements only the points list form');
        const staged = body.points.map((p) => ({ ...p, vector: checkDim(c, p.vector) }));
        for (const p of staged)
          c.points.set(pointKey(p.id), { id: p.id, vector: p.vector, payload: p.payload ?? {} });
        return { operation_id: 0, status: 'completed' };
      }
      case 'delete_points': {
        const c = collection(name);
        if (Array.isArray(body.points)) for (const id of body.points) c.points.delete(pointKey(id));
        else {
          checkFilter(c, body.filter);
          for (const [k, p] of c.points) if (filterHolds(body.filter, p)) c.points.delete(k);
        }
        return { operation_id: 0, status: 'completed' };
      }
      case 'count_points': {
        const c = collection(name);
        checkFilter(c, body?.filter);
        let count = 0;
        for (const p of c.points.values()) if (filterHolds(body?.filter, p)) count++;
        return { count };
      }
      case 'query_points': {
        const c = collection(name);
        if (body.prefetch || body.using || body.lookup_from)
          throw new HttpError(400, 'fake Qdrant implements only plain nearest-vector queries');
        const q = checkDim(c, body.query);
        checkFilter(c, body.filter);
        const scored = [...c.points.values()]
          .filter((p) => filterHolds(body.filter, p))
          .map((p) => ({ p, score: p.vector.reduce((s, x, i) => s + x * q[i]!, 0) }))
          .filter((x) => body.score_threshold == null || x.score >= body.score_threshold)
          .sort((a, b) => b.score - a.score);
        const offset = body.offset ?? 0;
        return {
          points: scored.slice(offset, offset + (body.limit ?? 10)).map(({ p, score }) => ({
            id: p.id,
            version: 0,
            score,
            payload: pickPayload(p.payload, body.with_payload),
          })),
        };
      }
      default:
        throw new HttpError(400, `fake Qdrant does not implement ${op}`);
    }
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      status: 200,
    };
    requests.push(rec);
    let status = 200;
    let payload: object;
    try {
      if (opts.apiKey !== undefined && presentedKey(req) !== opts.apiKey) {
        throw new HttpError(401, 'Must provide an API key or an Authorization bearer token');
      }
      if (text.length > 0) {
        try {
          rec.body = JSON.parse(text);
        } catch (err) {
          throw new HttpError(400, `Format error in JSON body: ${(err as Error).message}`);
        }
      }
      const v = validator.validate({
        method: rec.method,
        pathname: rec.path,
        query: url.searchParams,
        body: rec.body,
      });
      if (v.operationId) rec.operationId = v.operationId;
      if (!v.ok)
        throw new HttpError(
          v.operationId ? 400 : 404,
          `Format error in request (${validator.source}): ${v.error}`,
        );
      const fault = opts.fault?.(rec);
      if (fault) throw new HttpError(fault.status, fault.error);
      payload = {
        result: handle(v.operationId, v.pathParams, (rec.body ?? {}) as RequestBody),
        status: 'ok',
      };
    } catch (err) {
      status = err instanceof HttpError ? err.status : 500;
      rec.error = err instanceof Error ? err.message : String(err);
      payload = { status: { error: rec.error }, result: null };
    }
    rec.status = status;
    const time = Number(process.hrtime.bigint() - started) / 1e9;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...payload, time }));
  }

  const server = createServer((req, res) => {
    serve(req, res).catch((err) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: { error: String(err) }, result: null, time: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    validator,
    requests,
    collections,
    calls: (operationId) => requests.filter((r) => r.operationId === operationId),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
