import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeQdrant } from './fake-qdrant.js';
import { loadValidator, toJsonSchema } from './openapi-validator.js';

const validator = loadValidator();
const q = (s = '') => new URLSearchParams(s);
const check = (method: string, pathname: string, body: unknown, query = q()) =>
  validator.validate({ method, pathname, query, body });

describe(`request validation (${validator.source})`, () => {
  test('accepts what the adapter sends', () => {
    const r = check('POST', '/collections/c/points/query', {
      query: [0.1, 0.2],
      limit: 3,
      filter: { must: [{ key: 'language', match: { any: ['go'] } }], must_not: [] },
      with_payload: ['chunk_id', 'path'],
    });
    assert.deepEqual(r, {
      ok: true,
      operationId: 'query_points',
      pathParams: { collection_name: 'c' },
    });
  });

  test('bites: wrong types, missing fields, bad ids, duplicates, unknown parameters', () => {
    const bad: [string, string, unknown, URLSearchParams?][] = [
      ['PUT', '/collections/c/points', { points: [{ id: 1, vector: ['0.5', 1] }] }],
      ['PUT', '/collections/c/points', { points: [{ id: 'chunk-a', vector: [0.5] }] }],
      ['PUT', '/collections/c/points', { points: [{ id: -1, vector: [0.5] }] }],
      ['PUT', '/collections/c/points', { points: [{ vector: [0.5] }] }],
      ['PUT', '/collections/c/points', { points: [{ id: 1, vector: [0.5] }] }, q('wait=sure')],
      ['PUT', '/collections/c/index', { field_name: 'path' }, q('wiat=true')],
      ['PUT', '/collections/c', { vectors: { size: 0, distance: 'Cosine' } }],
      ['PUT', '/collections/c', { vectors: { size: 4, distance: 'cosine' } }],
      ['PUT', '/collections/c/index', { field_schema: 'keyword' }],
      ['POST', '/collections/c/points/query', { query: [1], limit: 0 }],
      ['POST', '/collections/c/points/query', { query: [1], filter: { mustnot: [] } }],
      [
        'POST',
        '/collections/c/points/query',
        { query: [1], filter: { must: [{ key: 'a', match: { any: ['x', 'x'] } }] } },
      ],
      ['POST', '/collections/c/points/delete', { paths: ['a'] }],
      ['POST', '/collections/c/points/count', { exact: 'yes' }],
      ['POST', '/collections/c/points/teleport', {}],
    ];
    for (const [method, path, body, query] of bad) {
      const r = check(method, path, body, query);
      assert.equal(
        r.ok,
        false,
        `${method} ${path} ${JSON.stringify(body)} ${query ?? ''} must be refused`,
      );
    }
  });

  test('the fake answers an invalid body with a Qdrant-style 400', async () => {
    const f = await startFakeQdrant({ validator });
    try {
      await fetch(`${f.url}/collections/c`, {
        method: 'PUT',
        body: JSON.stringify({ vectors: { size: 2, distance: 'Dot' } }),
      });
      const res = await fetch(`${f.url}/collections/c/points?wait=true`, {
        method: 'PUT',
        body: JSON.stringify({ points: [{ id: 1, vector: 'not a vector' }] }),
      });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { status: { error: string }; time: number };
      assert.match(body.status.error, /Format error in request .*body\/points\/0\/vector/);
      assert.equal(typeof body.time, 'number');
      assert.equal(f.collections.get('c')?.points.size, 0, 'nothing was stored');
      const bad = await fetch(`${f.url}/collections/c/points/query`, {
        method: 'POST',
        body: '{"query": [1,',
      });
      assert.equal(bad.status, 400);
    } finally {
      await f.close();
    }
  });
});

test('OpenAPI 3.0 nullable becomes JSON Schema null', () => {
  assert.deepEqual(toJsonSchema({ type: 'integer', nullable: true, description: 'x' }), {
    type: ['integer', 'null'],
  });
  assert.deepEqual(
    toJsonSchema({ anyOf: [{ $ref: '#/components/schemas/A' }, { nullable: true }] }),
    {
      anyOf: [{ $ref: 'urn:codesift:openapi#/definitions/A' }, { type: 'null' }],
    },
  );
  assert.deepEqual(toJsonSchema({ type: 'string', enum: ['a'], nullable: true }), {
    type: ['string', 'null'],
    enum: ['a', null],
  });
  assert.deepEqual(toJsonSchema({ properties: { example: { type: 'string' } } }), {
    properties: { example: { type: 'string' } },
  });
});
