/**
 * @elastic/elasticsearch-mock set up the way the tests here use it: a client
 * on the mock, a way to answer one method + path, and the requests seen.
 * Test support, exported as `@codesift/stores-elasticsearch/testing`.
 */
import { createRequire } from 'node:module';
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

export interface MockedClient {
  client: Client;
  /** Every request answered, in order. */
  calls: MockPattern[];
  /** Answers `method path` (path may hold `*`) with a body, or with what `reply(request)` returns. */
  on(method: string, path: string, reply: Reply): void;
}

export function mockedClient(): MockedClient {
  const mock = new Mock();
  const client = new Client({
    node: 'http://localhost:9200',
    Connection: mock.getConnection(),
    maxRetries: 0,
  });
  const calls: MockPattern[] = [];
  const on = (method: string, path: string, reply: Reply) =>
    mock.add({ method, path }, (p: MockPattern) => {
      calls.push(p);
      return (typeof reply === 'function' ? reply(p) : reply) as Record<string, unknown>;
    });
  return { client, calls, on };
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
