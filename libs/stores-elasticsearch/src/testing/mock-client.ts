/**
 * @elastic/elasticsearch-mock set up the way the tests here use it: a client
 * on the mock, a way to answer one method + path, and the requests seen.
 * Every request is first checked against Elasticsearch's published OpenAPI
 * specification (../shared/specs, required): one the spec does not allow
 * is answered with a 400 `openapi_spec_violation` naming what is wrong, and
 * recorded in `violations`, so no test passes on a request a real server
 * would refuse. Test support, exported as `@codesift/stores-elasticsearch/testing`.
 */
import { createRequire } from 'node:module';
import {
  publishedSpecPath,
  publishedValidator,
  type RequestValidator,
} from '@codesift/stores/openapi-testing';
import { Client, type ClientOptions } from '@elastic/elasticsearch';
import type { MockPattern, ResolverFn } from '@elastic/elasticsearch-mock';

// The mock is CommonJS with `module.exports = Mocker` but its typings declare
// `export default`, which NodeNext types as a namespace; require it directly.
const require = createRequire(import.meta.url);
interface ClientMock {
  add(pattern: MockPattern, resolver: ResolverFn): unknown;
  getConnection(): NonNullable<ClientOptions['Connection']>;
}
const Mock = require('@elastic/elasticsearch-mock') as new () => ClientMock;
// Errors a resolver returns must be the mock's own (CommonJS) classes: it
// tells a canned error from a canned body with instanceof.
const { errors } = require('@elastic/elasticsearch') as typeof import('@elastic/elasticsearch');

export type Reply = unknown | ((p: MockPattern) => unknown);

export const ES_SPEC_FILE = 'elasticsearch-serverless-openapi-9.1.json';

/**
 * The one operation codesift calls that the Serverless subset lacks: index
 * statistics (the cluster's `stats()` sizes its indices with it). Stateful
 * Elasticsearch, which the compose and Kubernetes files run, has it as
 * `GET /{index}/_stats/{metric}`; declared here with only the parameters
 * codesift sends, so anything more is still refused. On Serverless that
 * call would fail (docs/CLUSTER-STORES.md).
 */
const NOT_IN_SERVERLESS = {
  '/{index}/_stats/{metric}': {
    get: {
      operationId: 'indices-stats (stateful only)',
      parameters: [
        { name: 'index', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'metric', in: 'path', required: true, schema: { type: 'string', enum: ['store'] } },
      ],
    },
  },
};

/** Elasticsearch's published spec (ES_OPENAPI_SPEC overrides its path), parsed once per process. */
export function elasticsearchValidator(): RequestValidator {
  return publishedValidator(
    publishedSpecPath(ES_SPEC_FILE, process.env.ES_OPENAPI_SPEC),
    'Elasticsearch OpenAPI',
    { unionsAsAnyOf: true, supplement: NOT_IN_SERVERLESS },
  );
}

/** Checks one request as the mock received it; null when the spec allows it. */
export function specViolation(p: MockPattern): string | null {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(p.querystring ?? {})) {
    for (const one of Array.isArray(v) ? v : [v]) query.append(k, String(one));
  }
  const r = elasticsearchValidator().validate({
    method: String(p.method),
    pathname: String(p.path),
    query,
    body: p.body === null || p.body === undefined ? undefined : p.body,
  });
  return r.ok ? null : `${p.method} ${p.path}: ${r.error}`;
}

export interface MockedClient {
  client: Client;
  /** Every request answered, in order. */
  calls: MockPattern[];
  /** Requests the published spec refuses (each was answered with a 400). */
  violations: string[];
  /** Answers `method path` (path may hold `*`) with a body, or with what `reply(request)` returns. */
  on(method: string, path: string, reply: Reply): void;
}

export function mockedClient(): MockedClient {
  // Loaded before the first request: a missing spec fails the test here, clearly.
  elasticsearchValidator();
  const mock = new Mock();
  const client = new Client({
    node: 'http://localhost:9200',
    Connection: mock.getConnection(),
    maxRetries: 0,
  });
  const calls: MockPattern[] = [];
  const violations: string[] = [];
  const on = (method: string, path: string, reply: Reply) =>
    mock.add({ method, path }, (p: MockPattern) => {
      calls.push(p);
      const violation = specViolation(p);
      if (violation !== null) {
        violations.push(violation);
        return responseError(400, 'openapi_spec_violation', violation) as never;
      }
      return (typeof reply === 'function' ? reply(p) : reply) as Record<string, unknown>;
    });
  return { client, calls, violations, on };
}

/** An Elasticsearch error response as the client raises it. */
export function responseError(statusCode: number, type: string, reason: string): Error {
  return new errors.ResponseError({
    body: { error: { type, reason }, status: statusCode },
    statusCode,
    headers: {},
    warnings: null,
    meta: {} as never,
  });
}
