/**
 * ClusterIndex over an in-memory Elasticsearch (fake-elasticsearch.ts, on
 * @elastic/elasticsearch-mock) and the loopback fake Qdrant, whose every
 * request is validated against Qdrant's OpenAPI schema. Checks the writer
 * operations, the order of writes (manifest last), what a failure part-way
 * leaves behind and that redelivery repairs it, and that one scripted
 * writer scenario ends the same on SQLite and on the cluster stores.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { type Chunk, CodesiftError, type FileRecord, type SymbolInfo } from '@codesift/core';
import { type FileCommit, openSqliteIndex, type SqliteLocalIndex } from '@codesift/stores';
import { runManifestContract } from '@codesift/stores/contract';
import { ElasticsearchManifest } from '@codesift/stores-elasticsearch';
import { responseError } from '@codesift/stores-elasticsearch/testing';
import { type FakeQdrant, startFakeQdrant } from '@codesift/stores-qdrant/testing';
import { ClusterIndex, clusterNames } from './cluster-index.js';
import { type FakeElasticsearch, startFakeElasticsearch } from './testing/fake-elasticsearch.js';
import { sqliteWriterStore, type WriterStore } from './writer-store.js';

const DIMS = 4;

/** Qdrant faults by operation id, set per test; every request is logged into the shared order. */
let qdrantFault: ((op: string) => string | undefined) | undefined;
let order: string[] = [];
let qdrant: FakeQdrant;

before(async () => {
  qdrant = await startFakeQdrant({
    fault: (req) => {
      order.push(`qdrant ${req.operationId}`);
      const error = qdrantFault?.(req.operationId ?? '');
      return error ? { status: 500, error } : undefined;
    },
  });
});
after(() => qdrant.close());

let prefixSeq = 0;
let clock = 1_000;
let es: FakeElasticsearch;
let prefix: string;

beforeEach(() => {
  es = startFakeElasticsearch();
  order = [];
  qdrantFault = undefined;
  prefix = `t${++prefixSeq}`;
  // One log of both stores' requests, in the order they were made.
  const log = es.log;
  log.push = (...items: string[]) => order.push(...items.map((i) => `es ${i}`));
});

function open(opts: { create?: boolean; symbols?: SqliteLocalIndex['symbols'] } = {}) {
  return ClusterIndex.open({
    es: es.client,
    qdrant: { url: qdrant.url },
    prefix,
    create: opts.create ?? true,
    ...(opts.symbols ? { symbols: opts.symbols } : {}),
    now: () => ++clock,
  });
}

function vec(seed: number): Float32Array {
  const v = Float32Array.from({ length: DIMS }, (_, i) => Math.sin(seed * (i + 1)) + 1.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function chunk(path: string, id: string, content = `const ${id} = 1;`): Chunk {
  return {
    id,
    path,
    language: 'typescript',
    startLine: 1,
    endLine: 1,
    symbol: id,
    kind: 'function',
    content,
    signature: `function ${id}()`,
    doc: `Doc of ${id}.`,
    context: `${path}: ${id}`,
    // Both stores keep who wrote the context.
    contextSource: 'pattern',
    contextFallback: 'timeout',
  };
}

function symbol(path: string, name: string): SymbolInfo {
  return {
    id: `${path}#${name}`,
    name,
    qualifiedName: name,
    kind: 'function',
    path,
    language: 'typescript',
    startLine: 1,
    endLine: 1,
    parent: null,
    signature: `function ${name}()`,
    doc: '',
  };
}

function commit(path: string, ids: string[], opts: { vectors?: boolean; hash?: string } = {}) {
  const chunks = ids.map((id) => chunk(path, id));
  const record: FileRecord = {
    path,
    hash: opts.hash ?? `hash-of-${ids.join('+')}`,
    size: 100,
    mtimeMs: 1_700_000_000_000.5,
    language: 'typescript',
    chunkCount: chunks.length,
    symbolCount: ids.length,
    indexedAt: 1_700_000_000_123,
  };
  return {
    record,
    chunks,
    vectors: opts.vectors === false ? null : ids.map((_, i) => vec(i + path.length)),
    symbols: ids.map((id) => symbol(path, id)),
  } satisfies FileCommit;
}

const isCode = (code: string, pattern?: RegExp) => (e: unknown) =>
  e instanceof CodesiftError &&
  e.code === code &&
  (pattern === undefined || pattern.test(`${e.message} ${e.hint ?? ''}`));

const names = () => clusterNames(prefix);
const chunkIds = () => [...es.docs(names().chunks).keys()].sort();
const vectorIds = () =>
  [...(qdrant.collections.get(names().vectors)?.points.values() ?? [])]
    .map((p) => String(p.payload.chunk_id))
    .sort();
const writes = () => order.filter((o) => !/_mget|_count|HEAD|_mapping|count_points/.test(o));

describe('ClusterIndex: opening', () => {
  test('a writer creates the indices and the meta doc; a reader finds them', async () => {
    const ix = await open();
    const n = names();
    for (const name of [n.chunks, n.manifest, n.meta, n.files])
      assert.ok(es.indices.has(name), name);
    const meta = await ix.meta();
    assert.equal(meta.embedder, null);
    assert.equal(meta.schemaVersion, 2);
    await ix.close();
    const reader = await open({ create: false });
    assert.deepEqual(await reader.meta(), meta);
    assert.match(reader.location, new RegExp(`${n.chunks}.*qdrant ${qdrant.url}`));
    await reader.close();
  });

  test('a reader on stores no writer has created gets INDEX_NOT_FOUND', async () => {
    await assert.rejects(open({ create: false }), isCode('INDEX_NOT_FOUND'));
  });

  test('invalid store names are refused before any request', () => {
    assert.throws(() => clusterNames('Bad Name'), isCode('INVALID_ARGUMENT', /lowercase/));
    assert.throws(() => clusterNames('-x'), isCode('INVALID_ARGUMENT'));
  });
});

describe('ClusterIndex: embedder', () => {
  test('first use records it and creates the collection; the same again writes nothing', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    const meta = await ix.meta();
    assert.equal(meta.embedder, 'test:e4');
    assert.equal(meta.dimensions, DIMS);
    assert.equal(qdrant.collections.get(names().vectors)?.size, DIMS);
    order = [];
    await ix.ensureEmbedder('test:e4', DIMS);
    assert.deepEqual(writes(), [], 'nothing written when the embedder is already recorded');
    await ix.close();
  });

  test('another model on an index holding files is INDEX_INCOMPATIBLE; on an empty one it is taken', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    // Empty still: another model (and size) replaces the empty collection.
    await ix.ensureEmbedder('test:e3', 3);
    assert.equal(qdrant.collections.get(names().vectors)?.size, 3);
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.commitFiles([commit('src/a.ts', ['a1'])]);
    await assert.rejects(
      ix.ensureEmbedder('test:other', DIMS),
      isCode('INDEX_INCOMPATIBLE', /built with test:e4 \(4-d\), not test:other \(4-d\)/),
    );
    await assert.rejects(ix.ensureEmbedder(null, null), isCode('INDEX_INCOMPATIBLE'));
    await assert.rejects(ix.ensureEmbedder('x', null), isCode('INVALID_ARGUMENT'));
    await assert.rejects(ix.ensureEmbedder('x', 0), isCode('INVALID_ARGUMENT'));
    assert.equal((await ix.meta()).embedder, 'test:e4');
    await ix.close();
  });

  test('a second writer sees the embedder the first recorded', async () => {
    const a = await open();
    const b = await open();
    await a.ensureEmbedder('test:e4', DIMS);
    await a.commitFiles([commit('src/a.ts', ['a1'])]);
    await b.ensureEmbedder('test:e4', DIMS);
    await b.commitFiles([commit('src/b.ts', ['b1'])]);
    assert.deepEqual(vectorIds(), ['a1', 'b1']);
    await assert.rejects(b.ensureEmbedder('test:e3', 3), isCode('INDEX_INCOMPATIBLE'));
    await a.close();
    await b.close();
  });
});

describe('ClusterIndex: commitFiles', () => {
  test('writes chunks, vectors, then stale deletes, and the manifest last', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.setRoot('/repo');
    order = [];
    const c = commit('src/a.ts', ['a1', 'a2']);
    await ix.commitFiles([c]);
    const n = names();
    assert.deepEqual(writes(), [
      `es POST /${n.chunks}/_bulk`,
      'qdrant upsert_points',
      // The file's text (none in this commit: any older one is dropped).
      `es POST /${n.files}/_bulk`,
      `es POST /${n.chunks}/_delete_by_query`,
      'qdrant delete_points',
      `es POST /${n.manifest}/_bulk`,
      `es PUT /${n.meta}/_doc/updated`,
    ]);
    assert.deepEqual(await ix.manifest.get('src/a.ts'), c.record);
    assert.deepEqual(await ix.chunks.get(['a2', 'a1']), [c.chunks[1], c.chunks[0]]);
    assert.deepEqual(vectorIds(), ['a1', 'a2']);
    const meta = await ix.meta();
    assert.equal(meta.root, '/repo');
    assert.ok(meta.updatedAt > meta.createdAt);
    const stats = await ix.stats();
    assert.deepEqual(
      { ...stats, bytes: 0 },
      { files: 1, chunks: 2, symbols: 0, vectors: 2, bytes: 0 },
    );
    assert.ok(stats.bytes > 0);
    await ix.close();
  });

  test('a re-indexed file keeps its unchanged chunks in place and loses the stale ones', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.commitFiles([commit('src/a.ts', ['a1', 'a2']), commit('src/b.ts', ['b1'])]);
    await ix.commitFiles([commit('src/a.ts', ['a1', 'a3'])]);
    assert.deepEqual(chunkIds(), ['a1', 'a3', 'b1']);
    assert.deepEqual(vectorIds(), ['a1', 'a3', 'b1']);
    assert.equal((await ix.manifest.get('src/a.ts'))?.hash, 'hash-of-a1+a3');
    // A file committed without vectors keeps no vectors; an emptied file keeps no chunks.
    await ix.commitFiles([commit('src/b.ts', ['b2'], { vectors: false }), commit('src/a.ts', [])]);
    assert.deepEqual(chunkIds(), ['b2']);
    assert.deepEqual(vectorIds(), []);
    assert.equal((await ix.manifest.get('src/a.ts'))?.chunkCount, 0);
    await ix.close();
  });

  test('file texts are read back by path; stores made before they were kept have none', async () => {
    const ix = await open();
    await ix.commitFiles([{ ...commit('src/a.ts', ['a1'], { vectors: false }), text: 'a\nb\n' }]);
    assert.equal(await ix.fileTexts.get('src/a.ts'), 'a\nb\n');
    assert.equal(await ix.fileTexts.get('src/none.ts'), undefined);
    es.indices.delete(names().files);
    assert.equal(await ix.fileTexts.get('src/a.ts'), undefined);
    await ix.close();
  });

  test('two commits of one path in a batch: the last wins', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.commitFiles([commit('src/a.ts', ['a1']), commit('src/a.ts', ['a2'])]);
    assert.deepEqual(chunkIds(), ['a2']);
    assert.deepEqual(vectorIds(), ['a2']);
    await ix.close();
  });

  for (const [where, fail] of [
    [
      'the vector upsert',
      () => (qdrantFault = (op) => (op === 'upsert_points' ? 'disk full' : undefined)),
    ],
    [
      'the stale chunk delete',
      () =>
        (es.fault = (_m, p) =>
          p.endsWith('_delete_by_query')
            ? responseError(503, 'unavailable_shards_exception', 'no shards')
            : undefined),
    ],
    [
      'the stale vector delete',
      () => (qdrantFault = (op) => (op === 'delete_points' ? 'timeout' : undefined)),
    ],
    [
      'the manifest put',
      () =>
        (es.fault = (_m, p) =>
          p.includes('-manifest/_bulk')
            ? responseError(503, 'unavailable_shards_exception', 'no shards')
            : undefined),
    ],
  ] as const) {
    test(`a failure in ${where} leaves the file not done, and redelivery repairs it`, async () => {
      const ix = await open();
      await ix.ensureEmbedder('test:e4', DIMS);
      const v1 = commit('src/a.ts', ['a1', 'a2']);
      await ix.commitFiles([v1]);
      const v2 = commit('src/a.ts', ['a2', 'a3']);
      fail();
      await assert.rejects(ix.commitFiles([v2]));
      assert.deepEqual(
        await ix.manifest.get('src/a.ts'),
        v1.record,
        'the manifest still says the old version',
      );
      es.fault = undefined;
      qdrantFault = undefined;
      await ix.commitFiles([v2]);
      assert.deepEqual(await ix.manifest.get('src/a.ts'), v2.record);
      assert.deepEqual(chunkIds(), ['a2', 'a3']);
      assert.deepEqual(vectorIds(), ['a2', 'a3']);
      await ix.close();
    });
  }

  test('invalid commits are refused before anything is written', async () => {
    const ix = await open();
    const noEmbedder = commit('src/a.ts', ['a1']);
    order = [];
    await assert.rejects(ix.commitFiles([noEmbedder]), isCode('INVALID_ARGUMENT', /no embedder/));
    await ix.ensureEmbedder('test:e4', DIMS);
    const short = { ...commit('src/a.ts', ['a1', 'a2']), vectors: [vec(1)] };
    const wide = { ...commit('src/a.ts', ['a1']), vectors: [new Float32Array(DIMS + 1)] };
    const foreign = { ...commit('src/a.ts', ['a1']), chunks: [chunk('src/b.ts', 'a1')] };
    order = [];
    await assert.rejects(
      ix.commitFiles([commit('ok.ts', ['k']), short]),
      isCode('INVALID_ARGUMENT', /1 vectors for 2 chunks/),
    );
    await assert.rejects(ix.commitFiles([wide]), isCode('INVALID_ARGUMENT', /5 dimensions/));
    await assert.rejects(
      ix.commitFiles([foreign]),
      isCode('INVALID_ARGUMENT', /belongs to src\/b.ts/),
    );
    assert.deepEqual(writes(), []);
    await ix.close();
  });
});

describe('ClusterIndex: removeFiles', () => {
  test('derived data first, the manifest record last; idempotent', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.commitFiles([commit('src/a.ts', ['a1']), commit('src/b.ts', ['b1'])]);
    order = [];
    await ix.removeFiles(['src/a.ts', 'missing.ts', 'src/a.ts']);
    const n = names();
    assert.deepEqual(writes(), [
      `es POST /${n.chunks}/_delete_by_query`,
      'qdrant delete_points',
      `es POST /${n.files}/_bulk`,
      `es POST /${n.manifest}/_bulk`,
      `es PUT /${n.meta}/_doc/updated`,
    ]);
    assert.deepEqual(chunkIds(), ['b1']);
    assert.deepEqual(vectorIds(), ['b1']);
    assert.equal(await ix.manifest.get('src/a.ts'), undefined);
    await ix.removeFiles(['src/a.ts']);
    await ix.removeFiles([]);
    await ix.close();
  });

  test('a failure before the record goes leaves the file known, and the retry finishes', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.commitFiles([commit('src/a.ts', ['a1'])]);
    qdrantFault = (op) => (op === 'delete_points' ? 'unavailable' : undefined);
    await assert.rejects(ix.removeFiles(['src/a.ts']));
    assert.ok(await ix.manifest.get('src/a.ts'), 'still recorded: the scan will delete it again');
    qdrantFault = undefined;
    await ix.removeFiles(['src/a.ts']);
    assert.equal(await ix.manifest.get('src/a.ts'), undefined);
    assert.deepEqual(chunkIds(), []);
    assert.deepEqual(vectorIds(), []);
    await ix.close();
  });
});

describe('ClusterIndex: repositories', () => {
  test('jobs record repositories; removing the last file of one forgets it', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.setRoot('/r/api', 'api');
    await ix.setRoot('/r/web', 'web');
    await ix.commitFiles([commit('api/a.ts', ['a1']), commit('web/c.ts', ['c1'])]);
    assert.deepEqual((await ix.meta()).repositories, { api: '/r/api', web: '/r/web' });
    await assert.rejects(ix.setRoot('/src/tree'), /holds repositories \(api, web\)/);
    assert.deepEqual([...(await ix.manifest.all('api/')).keys()], ['api/a.ts']);
    await ix.removeFiles(['api/a.ts']);
    assert.deepEqual((await ix.meta()).repositories, { web: '/r/web' });
    assert.deepEqual(chunkIds(), ['c1']);
    await ix.close();
  });
});

describe('ClusterIndex: symbols', () => {
  test('a given symbol index is written with each commit and read by lookups', async () => {
    const sqlite = openSqliteIndex(':memory:');
    const ix = await open({ symbols: sqlite.symbols });
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.commitFiles([commit('src/a.ts', ['alpha', 'beta'])]);
    assert.deepEqual(
      (await ix.symbols.lookup('alpha')).map((s) => s.path),
      ['src/a.ts'],
    );
    await ix.commitFiles([commit('src/a.ts', ['beta'])]);
    assert.deepEqual(await ix.symbols.lookup('alpha'), []);
    assert.equal((await ix.stats()).symbols, 1);
    await ix.removeFiles(['src/a.ts']);
    assert.equal(await ix.symbols.count(), 0);
    await ix.close();
    sqlite.close();
  });

  test('without one, symbols are left alone (the symbol service stores them)', async () => {
    const ix = await open();
    await ix.ensureEmbedder('test:e4', DIMS);
    await ix.commitFiles([commit('src/a.ts', ['alpha'])]);
    assert.deepEqual(await ix.symbols.lookup('alpha'), []);
    assert.equal((await ix.stats()).symbols, 0);
    await ix.close();
  });
});

/**
 * One writer scenario against any WriterStore; returns what a reader sees
 * at the end, to compare SQLite with the cluster stores.
 */
async function scenario(
  store: WriterStore,
  read: {
    chunks: (ids: string[]) => Promise<Chunk[]>;
    manifest: () => Promise<Map<string, FileRecord>>;
    text: (path: string) => Promise<string | undefined>;
  },
) {
  await store.ensureEmbedder('test:e4', DIMS);
  await store.ensureEmbedder('test:e4', DIMS);
  await store.setRoot('/repo');
  await store.commitFiles([commit('src/a.ts', ['a1', 'a2']), commit('src/b.ts', ['b1'])]);
  await store.commitFiles([commit('src/a.ts', ['a2', 'a3'])]);
  await store.commitFiles([
    { ...commit('docs/c.md', ['c1'], { vectors: false }), text: '# C\n\nline 3\n' },
    { ...commit('docs/d.md', ['d1'], { vectors: false }), text: 'old d' },
    { ...commit('src/e.ts', ['e1']), text: 'export const e = 1;\n' },
  ]);
  // A commit without text drops the text kept before; a removal drops it too.
  await store.commitFiles([commit('docs/d.md', ['d2'], { vectors: false })]);
  await store.removeFiles(['src/b.ts', 'never.ts', 'src/e.ts']);
  await assert.rejects(store.ensureEmbedder('test:other', 8), isCode('INDEX_INCOMPATIBLE'));
  await assert.rejects(
    store.commitFiles([{ ...commit('src/x.ts', ['x1']), vectors: [vec(1), vec(2)] }]),
    isCode('INVALID_ARGUMENT'),
  );
  const meta = await store.meta();
  const stats = await store.stats();
  return {
    meta: { embedder: meta.embedder, dimensions: meta.dimensions, root: meta.root },
    counts: { files: stats.files, chunks: stats.chunks, vectors: stats.vectors },
    chunks: await read.chunks(['a1', 'a2', 'a3', 'b1', 'c1', 'x1']),
    manifest: [...(await read.manifest())].sort(),
    texts: await Promise.all(['docs/c.md', 'docs/d.md', 'src/e.ts', 'src/a.ts'].map(read.text)),
  };
}

describe('WriterStore: SQLite and the cluster stores end a writer scenario alike', () => {
  test('same meta, counts, chunks and manifest', async () => {
    const sqlite = openSqliteIndex(':memory:');
    const local = await scenario(sqliteWriterStore(sqlite, ':memory:'), {
      chunks: (ids) => sqlite.chunks.get(ids),
      manifest: () => sqlite.manifest.all(),
      text: (p) => sqlite.fileTexts.get(p),
    });
    sqlite.close();
    const ix = await open();
    const cluster = await scenario(ix, {
      chunks: (ids) => ix.chunks.get(ids),
      manifest: () => ix.manifest.all(),
      text: (p) => ix.fileTexts.get(p),
    });
    await ix.close();
    assert.deepEqual(cluster, local);
    assert.deepEqual(local.counts, { files: 3, chunks: 4, vectors: 2 });
    assert.deepEqual(local.texts, ['# C\n\nline 3\n', undefined, undefined, undefined]);
  });
});

runManifestContract('Elasticsearch adapter on the in-memory fake Elasticsearch', async () => {
  const fake = startFakeElasticsearch();
  const store = new ElasticsearchManifest({ client: fake.client, index: 'contract-manifest' });
  await store.ensureIndex();
  return { store, close: () => {} };
});
