/**
 * The hand-written schema subset (the operations the adapter may use) must
 * judge requests as the published spec does. The published spec is required
 * (../shared/specs, or QDRANT_OPENAPI_SPEC): without it these tests fail.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { publishedSpecPath } from '@codesift/stores/openapi-testing';
import { MINIMAL_QDRANT_OPENAPI } from './minimal-schema.js';
import {
  createValidator,
  loadValidator,
  type OpenApiDoc,
  type OpenApiParameter,
  QDRANT_SPEC_FILE,
} from './openapi-validator.js';

const spec = publishedSpecPath(QDRANT_SPEC_FILE, process.env.QDRANT_OPENAPI_SPEC);

const id = '8c5a5f3e-1d2b-5c3d-8e4f-0a1b2c3d4e5f';
const filter = {
  must: [
    { key: 'language', match: { any: ['typescript', 'python'] } },
    { key: 'path_prefixes', match: { any: ['src/'] } },
  ],
  must_not: [{ key: 'path_prefixes', match: { any: ['src/gen/'] } }],
};

/** [method, path, query, body, valid]: only shapes inside the subset, valid and not. */
const SAMPLES: [string, string, string, unknown, boolean][] = [
  ['GET', '/', '', undefined, true],
  ['GET', '/collections/c/exists', '', undefined, true],
  ['GET', '/collections/c', '', undefined, true],
  ['DELETE', '/collections/c', '', undefined, true],
  ['DELETE', '/collections/c', 'timeout=0', undefined, false],
  [
    'PUT',
    '/collections/c',
    '',
    { vectors: { size: 4, distance: 'Cosine', on_disk: false }, on_disk_payload: true },
    true,
  ],
  [
    'PUT',
    '/collections/c',
    'timeout=30',
    { vectors: { size: 4, distance: 'Dot', on_disk: null } },
    true,
  ],
  ['PUT', '/collections/c', '', { vectors: { size: 0, distance: 'Cosine' } }, false],
  ['PUT', '/collections/c', '', { vectors: { size: 4, distance: 'Angular' } }, false],
  ['PUT', '/collections/c', '', { vectors: { size: 4 } }, false],
  [
    'PUT',
    '/collections/c',
    '',
    { vectors: { size: 4, distance: 'Cosine' }, on_disk_payload: 'yes' },
    false,
  ],
  [
    'PUT',
    '/collections/c/index',
    'wait=true',
    { field_name: 'path', field_schema: 'keyword' },
    true,
  ],
  [
    'PUT',
    '/collections/c/index',
    'wait=true&ordering=strong',
    { field_name: 'path', field_schema: null },
    true,
  ],
  [
    'PUT',
    '/collections/c/index',
    'wait=1x',
    { field_name: 'path', field_schema: 'keyword' },
    false,
  ],
  ['PUT', '/collections/c/index', '', { field_name: 'path', field_schema: 'kw' }, false],
  ['PUT', '/collections/c/index', 'ordering=fast', { field_name: 'path' }, false],
  ['PUT', '/collections/c/index', '', { field_schema: 'keyword' }, false],
  [
    'PUT',
    '/collections/c/points',
    'wait=true',
    { points: [{ id, vector: [0.1, 0.2], payload: { path: 'a' } }] },
    true,
  ],
  [
    'PUT',
    '/collections/c/points',
    'wait=false',
    { points: [{ id: 7, vector: [1], payload: null }] },
    true,
  ],
  ['PUT', '/collections/c/points', '', { points: [] }, true],
  ['PUT', '/collections/c/points', '', { points: [{ id: 'a-chunk-id', vector: [1] }] }, false],
  ['PUT', '/collections/c/points', '', { points: [{ id: 1.5, vector: [1] }] }, false],
  ['PUT', '/collections/c/points', '', { points: [{ id, vector: [null] }] }, false],
  ['PUT', '/collections/c/points', '', { points: [{ id }] }, false],
  ['PUT', '/collections/c/points', '', { points: [{ id, vector: [1], payload: 'x' }] }, false],
  [
    'POST',
    '/collections/c/points/delete',
    'wait=true',
    { filter: { must: [{ key: 'path', match: { any: ['a', 'b'] } }] } },
    true,
  ],
  [
    'POST',
    '/collections/c/points/delete',
    '',
    { filter: { must: { key: 'path', match: { value: 'a' } } } },
    true,
  ],
  ['POST', '/collections/c/points/delete', '', { points: [id, 3] }, true],
  [
    'POST',
    '/collections/c/points/delete',
    '',
    { filter: { must: [{ key: 'path', match: { any: ['a', 'a'] } }] } },
    false,
  ],
  [
    'POST',
    '/collections/c/points/delete',
    '',
    { filter: { must: [{ match: { value: 'a' } }] } },
    false,
  ],
  ['POST', '/collections/c/points/delete', '', { filter: { all: [] } }, false],
  ['POST', '/collections/c/points/delete', '', {}, false],
  [
    'POST',
    '/collections/c/points/query',
    '',
    { query: [0.5, 0.5], limit: 10, filter, with_payload: ['chunk_id', 'path'] },
    true,
  ],
  [
    'POST',
    '/collections/c/points/query',
    'consistency=majority',
    { query: [1], limit: 1, with_payload: true, filter: null },
    true,
  ],
  [
    'POST',
    '/collections/c/points/query',
    'consistency=2&timeout=5',
    { query: [1], offset: 0, score_threshold: 0.2 },
    true,
  ],
  [
    'POST',
    '/collections/c/points/query',
    '',
    { query: [1], filter: { must: [{ key: 'a', match: { value: true } }] } },
    true,
  ],
  ['POST', '/collections/c/points/query', '', { query: [1], limit: 0 }, false],
  ['POST', '/collections/c/points/query', '', { query: [1], limit: 2.5 }, false],
  ['POST', '/collections/c/points/query', '', { query: [1], with_payload: 'path' }, false],
  [
    'POST',
    '/collections/c/points/query',
    '',
    { query: [1], filter: { must: [{ key: 'a', match: { any: [1, 'x'] } }] } },
    false,
  ],
  ['POST', '/collections/c/points/query', 'consistency=some', { query: [1] }, false],
  ['POST', '/collections/c/points/query', 'timeout=0', { query: [1] }, false],
  ['POST', '/collections/c/points/count', '', { exact: true }, true],
  ['POST', '/collections/c/points/count', '', { exact: true, filter }, true],
  ['POST', '/collections/c/points/count', '', { exact: 1 }, false],
  ['POST', '/collections/c/points/count', '', { filter: { must_not: 3 } }, false],
  // The stale-point delete: nested filters per file, has_id among the kept points.
  [
    'POST',
    '/collections/c/points/delete',
    'wait=true',
    {
      filter: {
        should: [
          { must: [{ key: 'path', match: { value: 'a.ts' } }], must_not: [{ has_id: [id] }] },
          { must: [{ key: 'path', match: { value: 'b.ts' } }] },
        ],
      },
    },
    true,
  ],
  ['POST', '/collections/c/points/delete', '', { filter: { must_not: [{ has_id: id }] } }, false],
  ['POST', '/collections/c/points/delete', '', { filter: { must: [{ has_id: ['x'] }] } }, false],
];

test('hand-written schemas judge sample requests as the published spec does', () => {
  const published = loadValidator(spec);
  const minimal = createValidator(MINIMAL_QDRANT_OPENAPI, 'hand-written', false);
  const disagreements: string[] = [];
  for (const [method, pathname, query, body, expected] of SAMPLES) {
    const req = { method, pathname, query: new URLSearchParams(query), body };
    const p = published.validate(req);
    const m = minimal.validate(req);
    const label = `${method} ${pathname}?${query} ${JSON.stringify(body)}`;
    assert.equal(
      p.ok,
      expected,
      `published spec on ${label}: ${p.ok ? 'accepted' : (p as { error: string }).error}`,
    );
    if (m.ok !== p.ok || m.operationId !== p.operationId)
      disagreements.push(
        `${label}: published ${p.ok}/${p.operationId}, hand-written ${m.ok}/${m.operationId}`,
      );
  }
  assert.deepEqual(disagreements, []);
});

test('every hand-written operation exists in the published spec with the same parameters', async () => {
  const { readFileSync } = await import('node:fs');
  const doc = JSON.parse(readFileSync(spec, 'utf8')) as OpenApiDoc;
  for (const [path, item] of Object.entries(MINIMAL_QDRANT_OPENAPI.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const theirs = doc.paths[path]?.[method];
      assert.ok(theirs, `${method.toUpperCase()} ${path} is in the published spec`);
      assert.equal(theirs.operationId, op.operationId);
      const names = (o: typeof op) =>
        (o.parameters ?? [])
          .map((p) => `${(p as OpenApiParameter).in}:${(p as OpenApiParameter).name}`)
          .sort();
      assert.deepEqual(names(op), names(theirs), `parameters of ${op.operationId}`);
      assert.equal(
        Boolean(op.requestBody),
        Boolean(theirs.requestBody),
        `body of ${op.operationId}`,
      );
    }
  }
});
