import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { runVectorIndexContract } from '@codesift/stores/contract';
import { createCollectionBody } from './collection.js';
import { pathPrefixes } from './filters.js';
import { pointId } from './ids.js';
import { type FakeQdrant, type FakeQdrantOptions, startFakeQdrant } from './testing/fake-qdrant.js';
import { loadValidator } from './testing/openapi-validator.js';
import { QdrantVectorIndex } from './vector-index.js';

const validator = loadValidator();
let fake: FakeQdrant | undefined;
let counter = 0;

after(async () => {
  await fake?.close();
});

// Every request of the real adapter is checked against the schema named here.
runVectorIndexContract(
  `qdrant adapter on the fake server, requests validated by ${validator.source}`,
  async ({ dimensions }) => {
    fake ??= await startFakeQdrant({ validator });
    const store = await QdrantVectorIndex.open({
      url: fake.url,
      collection: `contract_${++counter}`,
      dimensions,
    });
    const server = fake;
    return {
      store,
      close: async () => {
        await store.dropCollection();
        const refused = server.requests.filter((r) => r.status >= 400 && r.status !== 409);
        assert.deepEqual(refused, [], 'the fake refused none of the adapter requests');
      },
    };
  },
);

const unit = (...v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v, (x) => x / n);
};

async function withFake(
  fn: (
    f: FakeQdrant,
    open: (o?: { batchSize?: number }) => Promise<QdrantVectorIndex>,
  ) => Promise<void>,
  opts: FakeQdrantOptions = {},
): Promise<void> {
  const f = await startFakeQdrant({ validator, ...opts });
  try {
    await fn(f, (o = {}) =>
      QdrantVectorIndex.open({ url: f.url, collection: 'chunks', dimensions: 3, ...o }),
    );
  } finally {
    await f.close();
  }
}

describe('QdrantVectorIndex requests', () => {
  test('open creates the collection and keyword indexes once, and reuses it', () =>
    withFake(async (f, open) => {
      await open();
      const [create] = f.calls('create_collection');
      assert.equal(create?.path, '/collections/chunks');
      assert.deepEqual(create?.body, {
        vectors: { size: 3, distance: 'Cosine', on_disk: false },
        on_disk_payload: true,
      });
      assert.deepEqual(
        f.calls('create_field_index').map((r) => [r.body, r.query.wait]),
        [
          [{ field_name: 'path', field_schema: 'keyword' }, 'true'],
          [{ field_name: 'language', field_schema: 'keyword' }, 'true'],
          [{ field_name: 'path_prefixes', field_schema: 'keyword' }, 'true'],
        ],
      );
      await open();
      assert.equal(f.calls('create_collection').length, 1, 'an existing collection is reused');
      assert.equal(f.calls('get_collection').length, 1, 'and its vectors are checked');
    }));

  test('an existing collection with other vectors is refused clearly', () =>
    withFake(async (f, open) => {
      await open();
      await assert.rejects(
        QdrantVectorIndex.open({ url: f.url, collection: 'chunks', dimensions: 8 }),
        (e: unknown) =>
          e instanceof CodesiftError &&
          e.code === 'INDEX_INCOMPATIBLE' &&
          /3-d Cosine/.test(e.message),
      );
    }));

  test('upserts carry uuid ids, the chunk id and path prefixes, in batches, waiting', () =>
    withFake(async (f, open) => {
      const s = await open({ batchSize: 2 });
      await s.upsert([
        { id: 'a', path: 'src/a.ts', language: 'typescript', vector: unit(1, 0, 0) },
        { id: 'b', path: 'src/b.ts', language: 'typescript', vector: unit(0, 1, 0) },
        { id: 'c', path: 'c.py', language: 'python', vector: unit(0, 0, 1) },
        { id: 'a', path: 'src/a.ts', language: 'typescript', vector: unit(1, 1, 0) },
      ]);
      const ups = f.calls('upsert_points');
      assert.equal(ups.length, 2, 'three distinct points in batches of two');
      assert.ok(ups.every((r) => r.query.wait === 'true'));
      const points = ups.flatMap(
        (r) => (r.body as { points: { id: string; payload: object; vector: number[] }[] }).points,
      );
      assert.deepEqual(
        points.map((p) => p.id),
        [pointId('b'), pointId('c'), pointId('a')],
        'the last record of an id wins',
      );
      assert.deepEqual(points[1]!.payload, {
        chunk_id: 'c',
        path: 'c.py',
        language: 'python',
        path_prefixes: ['c', 'c.', 'c.p', 'c.py'],
      });
      assert.equal(points[2]!.vector.length, 3);
      assert.equal(await s.count(), 3);
    }));

  test('deleteByPaths sends one filter on the exact path; nothing for no paths', () =>
    withFake(async (f, open) => {
      const s = await open();
      await s.deleteByPaths([]);
      assert.equal(f.calls('delete_points').length, 0);
      await s.deleteByPaths(['src/a.ts', 'src/b.ts', 'src/a.ts']);
      const [del] = f.calls('delete_points');
      assert.equal(del?.query.wait, 'true');
      assert.deepEqual(del?.body, {
        filter: { must: [{ key: 'path', match: { any: ['src/a.ts', 'src/b.ts'] } }] },
      });
    }));

  test('deleteStale removes the points of each file that it does not keep, one nested filter each', () =>
    withFake(async (f, open) => {
      const s = await open();
      await s.upsert([
        { id: 'a1', path: 'src/a.ts', language: 'typescript', vector: unit(1, 0, 0) },
        { id: 'a2', path: 'src/a.ts', language: 'typescript', vector: unit(0, 1, 0) },
        { id: 'a3', path: 'src/a.ts', language: 'typescript', vector: unit(0, 0, 1) },
        { id: 'b1', path: 'src/b.ts', language: 'typescript', vector: unit(1, 1, 0) },
        { id: 'c1', path: 'src/c.ts', language: 'typescript', vector: unit(1, 0, 1) },
      ]);
      await s.deleteStale([]);
      assert.equal(f.calls('delete_points').length, 0);
      await s.deleteStale([
        { path: 'src/a.ts', keep: ['a1', 'a3', 'a1'] },
        { path: 'src/b.ts', keep: [] },
      ]);
      const [del] = f.calls('delete_points');
      assert.equal(del?.query.wait, 'true');
      assert.deepEqual(del?.body, {
        filter: {
          should: [
            {
              must: [{ key: 'path', match: { value: 'src/a.ts' } }],
              must_not: [{ has_id: [pointId('a1'), pointId('a3')] }],
            },
            { must: [{ key: 'path', match: { value: 'src/b.ts' } }] },
          ],
        },
      });
      const left = await s.search({ vector: unit(1, 1, 1), limit: 10 });
      assert.deepEqual(left.map((h) => h.id).sort(), ['a1', 'a3', 'c1']);
    }));

  test('inspect and drop work on a collection without opening it', () =>
    withFake(async (f, open) => {
      const conn = { url: f.url, collection: 'chunks' };
      assert.equal(await QdrantVectorIndex.inspect(conn), null);
      const s = await open();
      await s.upsert([{ id: 'a', path: 'a.ts', language: 'typescript', vector: unit(1, 0, 0) }]);
      assert.deepEqual(await QdrantVectorIndex.inspect(conn), { dimensions: 3, points: 1 });
      await QdrantVectorIndex.drop(conn);
      assert.equal(await QdrantVectorIndex.inspect(conn), null);
      await QdrantVectorIndex.drop(conn);
    }));

  test('search sends the vector, limit, must / must_not filters and asks only for the fields it reads', () =>
    withFake(async (f, open) => {
      const s = await open();
      await s.upsert([
        { id: 'a', path: 'src/a.ts', language: 'typescript', vector: unit(1, 0, 0) },
      ]);
      const hits = await s.search({
        vector: unit(1, 0, 0),
        limit: 5,
        filter: {
          languages: ['typescript', 'typescript', 'python'],
          pathPrefixes: ['src/', 'lib'],
          excludePathPrefixes: ['src/gen/'],
        },
      });
      assert.deepEqual(
        hits.map((h) => [h.id, h.path]),
        [['a', 'src/a.ts']],
      );
      const [q] = f.calls('query_points');
      const body = q?.body as Record<string, unknown>;
      assert.equal(body.limit, 5);
      assert.deepEqual(body.with_payload, ['chunk_id', 'path']);
      assert.deepEqual(body.filter, {
        must: [
          { key: 'language', match: { any: ['typescript', 'python'] } },
          { key: 'path_prefixes', match: { any: ['src/', 'lib'] } },
        ],
        must_not: [{ key: 'path_prefixes', match: { any: ['src/gen/'] } }],
      });
      await s.search({
        vector: unit(1, 0, 0),
        limit: 5,
        filter: { languages: [], pathPrefixes: [''] },
      });
      assert.equal((f.calls('query_points')[1]!.body as { filter?: unknown }).filter, undefined);
      // Limit 0 and "exclude everything" need no request (Qdrant's limit is >= 1).
      assert.deepEqual(await s.search({ vector: unit(1, 0, 0), limit: 0 }), []);
      assert.deepEqual(
        await s.search({ vector: unit(1, 0, 0), limit: 3, filter: { excludePathPrefixes: [''] } }),
        [],
      );
      assert.equal(f.calls('query_points').length, 2);
      await assert.rejects(s.search({ vector: unit(1, 0), limit: 3 }), {
        code: 'INVALID_ARGUMENT',
      });
      assert.equal(f.calls('count_points').length, 0);
      await s.count();
      assert.deepEqual(f.calls('count_points')[0]?.body, { exact: true });
    }));

  test('the collection body is what createCollectionBody says', () => {
    assert.deepEqual(
      createCollectionBody({ collection: 'x', dimensions: 512, onDiskVectors: true }).vectors,
      {
        size: 512,
        distance: 'Cosine',
        on_disk: true,
      },
    );
    assert.deepEqual(pathPrefixes('a/b'), ['a', 'a/', 'a/b']);
  });
});

describe('QdrantVectorIndex errors', () => {
  test('a server that is down gives a clear INTERNAL error naming QDRANT_URL', async () => {
    const f = await startFakeQdrant({ validator });
    const url = f.url;
    await f.close();
    await assert.rejects(
      QdrantVectorIndex.open({ url, collection: 'c', dimensions: 3 }),
      (e: unknown) =>
        e instanceof CodesiftError &&
        e.code === 'INTERNAL' &&
        e.message.includes(url) &&
        /ECONNREFUSED/.test(e.message) &&
        /QDRANT_URL/.test(e.hint ?? ''),
    );
  });

  test("a server error carries Qdrant's reason; a dimension refusal is INVALID_ARGUMENT", () => {
    let mode = '';
    return withFake(
      async (_f, open) => {
        const s = await open();
        mode = 'boom';
        await assert.rejects(s.count(), (e: unknown) => {
          assert.ok(e instanceof CodesiftError);
          assert.equal(e.code, 'INTERNAL');
          assert.match(e.message, /count .*HTTP 500: Service internal error: disk full/);
          assert.match(e.hint ?? '', /QDRANT_URL/);
          return true;
        });
        mode = 'dim';
        await assert.rejects(
          s.upsert([{ id: 'a', path: 'a', language: 'x', vector: unit(1, 0, 0) }]),
          { code: 'INVALID_ARGUMENT' },
        );
        mode = '';
        await assert.rejects(
          s.upsert([
            { id: 'a', path: 'a', language: 'x', vector: Float32Array.from([1, Number.NaN, 0]) },
          ]),
          { code: 'INVALID_ARGUMENT' },
        );
      },
      {
        fault: (r) => {
          if (mode === 'boom') return { status: 500, error: 'Service internal error: disk full' };
          if (mode === 'dim' && r.operationId === 'upsert_points')
            return {
              status: 400,
              error: 'Wrong input: Vector dimension error: expected dim: 4, got 3',
            };
          return undefined;
        },
      },
    );
  });
});

describe('fake server', () => {
  let f: FakeQdrant;
  before(async () => {
    f = await startFakeQdrant({ validator });
  });
  after(() => f.close());

  test('refuses filters on fields without a payload index, like strict mode', async () => {
    const res = await fetch(`${f.url}/collections/x`, {
      method: 'PUT',
      body: JSON.stringify({ vectors: { size: 2, distance: 'Cosine' } }),
    });
    assert.equal(res.status, 200);
    const count = await fetch(`${f.url}/collections/x/points/count`, {
      method: 'POST',
      body: JSON.stringify({ filter: { must: [{ key: 'path', match: { value: 'a' } }] } }),
    });
    assert.equal(count.status, 400);
    assert.match(
      ((await count.json()) as { status: { error: string } }).status.error,
      /Index required/,
    );
  });
});
