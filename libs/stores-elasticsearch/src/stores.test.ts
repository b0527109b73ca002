/**
 * The chunk store, manifest, index metadata and stale-chunk deletion against
 * @elastic/elasticsearch-mock: the exact requests and the reading of canned
 * answers. What the mock cannot show (real-time mget, refresh visibility,
 * sorting, conditional writes on a server) is for contract.test.ts (ES_URL).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { ANALYZER_VERSION } from '@codesift/analysis';
import { type Chunk, CodesiftError, type FileRecord } from '@codesift/core';
import { ElasticsearchChunkStore, MGET_BATCH_IDS } from './chunk-store.js';
import { ElasticsearchIndexMeta } from './index-meta.js';
import { ElasticsearchKeywordIndex, staleChunksQuery } from './keyword-index.js';
import { ElasticsearchManifest, manifestDocId } from './manifest.js';
import { manifestIndexBody, metaIndexBody } from './template.js';
import { mockedClient, responseError } from './testing/mock-client.js';

const isCode = (code: string, pattern?: RegExp) => (e: unknown) =>
  e instanceof CodesiftError &&
  e.code === code &&
  (pattern === undefined || pattern.test(`${e.message} ${e.hint ?? ''}`));

function chunk(id: string, over: Partial<Chunk> = {}): Chunk {
  return {
    id,
    path: 'src/a.ts',
    language: 'typescript',
    startLine: 1,
    endLine: 4,
    symbol: 'Graph.addEdge',
    kind: 'method',
    content: 'addEdge(a, b) {\n  this.edges.push([a, b]);\n}',
    signature: 'addEdge(a: string, b: string): void',
    doc: 'Inserts an edge.',
    context: 'src/a.ts > Graph',
    ...over,
  };
}

/** The chunk doc's `_source` as stored (the term fields are excluded from `_source`). */
function source(c: Chunk) {
  const stored: Record<string, string> = { content: c.content };
  if (c.context !== undefined) stored.context = c.context;
  if (c.signature !== undefined) stored.signature = c.signature;
  if (c.doc !== undefined) stored.doc = c.doc;
  return {
    id: c.id,
    path: c.path,
    language: c.language,
    start_line: c.startLine,
    end_line: c.endLine,
    symbol: c.symbol,
    kind: c.kind,
    chunk: stored,
  };
}

describe('ElasticsearchChunkStore', () => {
  test('mget by id with the chunk fields; answers in the order asked, unknown ids skipped', async () => {
    const { client, calls, on } = mockedClient();
    const a = chunk('a');
    const { context: _c, doc: _d, signature: _s, ...bare } = chunk('b', { symbol: null });
    const b: Chunk = bare;
    on('POST', '/cs-chunks/_mget', {
      docs: [
        { _index: 'cs-chunks', _id: 'b', found: true, _source: source(b) },
        { _index: 'cs-chunks', _id: 'nope', found: false },
        { _index: 'cs-chunks', _id: 'a', found: true, _source: source(a) },
      ],
    });
    const store = new ElasticsearchChunkStore({ client, index: 'cs-chunks' });
    const got = await store.get(['b', 'nope', 'a', 'b']);
    assert.deepEqual(got, [b, a, b]);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.body, {
      ids: ['b', 'nope', 'a'],
    });
    assert.equal(
      calls[0]!.querystring?._source,
      'id,path,language,start_line,end_line,symbol,kind,chunk',
    );
    assert.deepEqual(await store.get([]), []);
    assert.equal(calls.length, 1, 'no request for no ids');
  });

  test('many ids are split into batches', async () => {
    const { client, calls, on } = mockedClient();
    on('POST', '/cs-chunks/_mget', (p: { body?: unknown }) => ({
      docs: (p.body as { ids: string[] }).ids.map((id) => ({
        _index: 'cs-chunks',
        _id: id,
        found: true,
        _source: source(chunk(id)),
      })),
    }));
    const store = new ElasticsearchChunkStore({ client, index: 'cs-chunks' });
    const ids = Array.from({ length: MGET_BATCH_IDS + 5 }, (_, i) => `c${i}`);
    const got = await store.get(ids);
    assert.equal(got.length, ids.length);
    assert.deepEqual(
      calls.map((c) => (c.body as { ids: string[] }).ids.length),
      [MGET_BATCH_IDS, 5],
    );
  });

  test('a missing index is INDEX_NOT_FOUND, other item errors INTERNAL', async () => {
    const { client, on } = mockedClient();
    let type = 'index_not_found_exception';
    on('POST', '/cs-chunks/_mget', () => ({
      docs: [{ _index: 'cs-chunks', _id: 'a', error: { type, reason: 'no such index' } }],
    }));
    const store = new ElasticsearchChunkStore({ client, index: 'cs-chunks' });
    await assert.rejects(store.get(['a']), isCode('INDEX_NOT_FOUND'));
    type = 'shard_not_available_exception';
    await assert.rejects(store.get(['a']), isCode('INTERNAL', /shard_not_available_exception/));
  });

  test('full chunks are written with their doc comment, a KeywordDoc without', async () => {
    const { client, calls, on } = mockedClient();
    on('POST', '/cs-chunks/_bulk', { errors: false, took: 1, items: [] });
    const kw = new ElasticsearchKeywordIndex({ client, index: 'cs-chunks' });
    const a = chunk('a');
    await kw.upsert([a]);
    const line = (calls[0]!.body as Record<string, unknown>[])[1]!;
    assert.deepEqual(line.chunk, {
      content: a.content,
      context: a.context,
      signature: a.signature,
      doc: a.doc,
    });
  });
});

describe('stale chunk deletion', () => {
  test('one delete_by_query: per file, its path minus the ids it keeps', async () => {
    const { client, calls, on } = mockedClient();
    on('POST', '/cs-chunks/_delete_by_query', { deleted: 3, failures: [] });
    const kw = new ElasticsearchKeywordIndex({ client, index: 'cs-chunks' });
    await kw.deleteStale([
      { path: 'src/a.ts', keep: ['a1', 'a2', 'a1'] },
      { path: 'src/gone.ts', keep: [] },
    ]);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.body, {
      query: {
        bool: {
          should: [
            {
              bool: {
                filter: [{ term: { path: { value: 'src/a.ts' } } }],
                must_not: [{ ids: { values: ['a1', 'a2'] } }],
              },
            },
            { bool: { filter: [{ term: { path: { value: 'src/gone.ts' } } }] } },
          ],
          minimum_should_match: 1,
        },
      },
    });
    assert.equal(calls[0]!.querystring?.refresh, 'true');
    assert.equal(calls[0]!.querystring?.conflicts, 'proceed');
  });

  test('large batches are split, none sent for no files', async () => {
    const { client, calls, on } = mockedClient();
    on('POST', '/cs-chunks/_delete_by_query', { deleted: 0, failures: [] });
    const kw = new ElasticsearchKeywordIndex({ client, index: 'cs-chunks' });
    await kw.deleteStale([]);
    assert.equal(calls.length, 0);
    const files = Array.from({ length: 450 }, (_, i) => ({ path: `f${i}.ts`, keep: [`k${i}`] }));
    await kw.deleteStale(files);
    assert.equal(calls.length, 3);
    assert.deepEqual(
      (calls[2]!.body as { query: unknown }).query,
      staleChunksQuery(files.slice(400)),
    );
  });
});

function rec(path: string, over: Partial<FileRecord> = {}): FileRecord {
  return {
    path,
    hash: 'h'.repeat(64),
    size: 10,
    mtimeMs: 1_700_000_000_000.5,
    language: 'typescript',
    chunkCount: 2,
    symbolCount: 1,
    indexedAt: 1_700_000_000_123,
    ...over,
  };
}

function manifestSource(r: FileRecord) {
  return {
    path: r.path,
    hash: r.hash,
    size: r.size,
    mtime_ms: r.mtimeMs,
    language: r.language,
    chunk_count: r.chunkCount,
    symbol_count: r.symbolCount,
    indexed_at: r.indexedAt,
  };
}

describe('ElasticsearchManifest', () => {
  test('doc ids are the SHA-256 of the path', () => {
    const long = `${'deep/'.repeat(200)}file.ts`;
    assert.equal(manifestDocId(long), createHash('sha256').update(long).digest('hex'));
    assert.equal(manifestDocId(long).length, 64);
  });

  test('ensureIndex creates a strict mapping searchable by path only', async () => {
    const { client, calls, on } = mockedClient();
    on('PUT', '/cs-manifest', { acknowledged: true, index: 'cs-manifest' });
    const m = new ElasticsearchManifest({ client, index: 'cs-manifest' });
    assert.equal(await m.ensureIndex(), true);
    const put = calls.find((c) => c.method === 'PUT')!;
    assert.deepEqual(put.body, JSON.parse(JSON.stringify(manifestIndexBody())));
    const props = manifestIndexBody().mappings.properties!;
    assert.deepEqual(props.path, { type: 'keyword' });
    for (const [k, v] of Object.entries(props)) {
      if (k !== 'path') assert.equal((v as { index?: boolean }).index, false, k);
    }
  });

  test('put is one bulk of index ops keyed by path hash, refreshed before it resolves', async () => {
    const { client, calls, on } = mockedClient();
    on('POST', '/cs-manifest/_bulk', { errors: false, took: 1, items: [] });
    const m = new ElasticsearchManifest({ client, index: 'cs-manifest' });
    await m.put([rec('a.ts'), rec('b/c.py', { language: 'python' })]);
    assert.equal(calls[0]!.querystring?.refresh, 'wait_for');
    assert.deepEqual(calls[0]!.body, [
      { index: { _id: manifestDocId('a.ts') } },
      manifestSource(rec('a.ts')),
      { index: { _id: manifestDocId('b/c.py') } },
      manifestSource(rec('b/c.py', { language: 'python' })),
    ]);
  });

  test('get reads one doc by id: the record, or undefined when not found', async () => {
    const { client, calls, on } = mockedClient();
    on('POST', '/cs-manifest/_mget', (p: { body?: unknown }) => {
      const [id] = (p.body as { ids: string[] }).ids;
      return id === manifestDocId('a.ts')
        ? { docs: [{ _id: id, found: true, _source: manifestSource(rec('a.ts')) }] }
        : { docs: [{ _id: id, found: false }] };
    });
    const m = new ElasticsearchManifest({ client, index: 'cs-manifest' });
    assert.deepEqual(await m.get('a.ts'), rec('a.ts'));
    assert.equal(await m.get('missing.ts'), undefined);
    assert.deepEqual(calls[1]!.body, { ids: [manifestDocId('missing.ts')] });
  });

  test('all pages through the records sorted by path with search_after', async () => {
    const { client, calls, on } = mockedClient();
    const records = Array.from({ length: 1_002 }, (_, i) => rec(`f${String(i).padStart(4, '0')}`));
    on('POST', '/cs-manifest/_search', (p: { body?: unknown }) => {
      const after = (p.body as { search_after?: string[] }).search_after?.[0];
      const from = after === undefined ? 0 : records.findIndex((r) => r.path === after) + 1;
      return {
        hits: {
          hits: records.slice(from, from + 1_000).map((r) => ({
            _id: manifestDocId(r.path),
            _source: manifestSource(r),
            sort: [r.path],
          })),
        },
      };
    });
    const m = new ElasticsearchManifest({ client, index: 'cs-manifest' });
    const all = await m.all();
    assert.equal(all.size, 1_002);
    assert.deepEqual(all.get('f1001'), rec('f1001'));
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[0]!.body, {
      size: 1_000,
      sort: [{ path: 'asc' }],
      track_total_hits: false,
    });
    assert.deepEqual((calls[1]!.body as { search_after: unknown }).search_after, ['f0999']);
  });

  test('remove is one bulk of deletes; deleting a missing record is not an error', async () => {
    const { client, calls, on } = mockedClient();
    on('POST', '/cs-manifest/_bulk', {
      errors: false,
      took: 1,
      items: [{ delete: { _id: manifestDocId('missing.ts'), status: 404, result: 'not_found' } }],
    });
    const m = new ElasticsearchManifest({ client, index: 'cs-manifest' });
    await m.remove(['missing.ts', 'missing.ts']);
    assert.deepEqual(calls[0]!.body, [{ delete: { _id: manifestDocId('missing.ts') } }]);
    await m.remove([]);
    assert.equal(calls.length, 1);
  });
});

describe('ElasticsearchIndexMeta', () => {
  const metaDoc = (over: Record<string, unknown> = {}) => ({
    schema_version: 2,
    analyzer_version: ANALYZER_VERSION,
    embedder: null,
    dimensions: null,
    root: null,
    created_at: 1_000,
    ...over,
  });

  test('ensure creates the index and the meta doc, then reads it back', async () => {
    const { client, calls, on } = mockedClient();
    on('PUT', '/cs-meta', { acknowledged: true, index: 'cs-meta' });
    on('PUT', '/cs-meta/_create/index', { result: 'created' });
    on('POST', '/cs-meta/_mget', {
      docs: [
        { _id: 'index', found: true, _seq_no: 0, _primary_term: 1, _source: metaDoc() },
        { _id: 'updated', found: false },
      ],
    });
    const meta = new ElasticsearchIndexMeta({ client, index: 'cs-meta', now: () => 1_000 });
    await meta.ensure();
    const create = calls.find((c) => c.method === 'PUT' && c.path === '/cs-meta')!;
    assert.deepEqual(create.body, JSON.parse(JSON.stringify(metaIndexBody())));
    assert.deepEqual(calls.find((c) => c.path === '/cs-meta/_create/index')!.body, metaDoc());
    const read = await meta.read();
    assert.deepEqual(read, {
      meta: {
        schemaVersion: 2,
        analyzerVersion: ANALYZER_VERSION,
        embedder: null,
        dimensions: null,
        createdAt: 1_000,
        updatedAt: 1_000,
        root: null,
        repositories: {},
      },
      seqNo: 0,
      primaryTerm: 1,
    });
  });

  test('an existing meta doc is kept (create conflicts), and one from another version refused', async () => {
    const { client, calls, on } = mockedClient();
    on('HEAD', '/cs-meta', '');
    on('GET', '/cs-meta/_mapping', {
      'cs-meta': {
        mappings: {
          _meta: { codesift: { schema_version: 2, analyzer_version: ANALYZER_VERSION } },
        },
      },
    });
    on('PUT', '/cs-meta/_create/index', () =>
      responseError(409, 'version_conflict_engine_exception', 'document already exists'),
    );
    let schema = 2;
    on('POST', '/cs-meta/_mget', () => ({
      docs: [
        {
          _id: 'index',
          found: true,
          _seq_no: 4,
          _primary_term: 1,
          _source: metaDoc({
            schema_version: schema,
            embedder: 'builtin:use-lite',
            dimensions: 512,
          }),
        },
        { _id: 'updated', found: true, _source: { updated_at: 5_000 } },
      ],
    }));
    const meta = new ElasticsearchIndexMeta({ client, index: 'cs-meta' });
    await meta.ensure();
    assert.ok(!calls.some((c) => c.method === 'PUT' && c.path === '/cs-meta'));
    const read = await meta.read();
    assert.equal(read.meta.embedder, 'builtin:use-lite');
    assert.equal(read.meta.updatedAt, 5_000);
    schema = 1;
    await assert.rejects(meta.read(), isCode('INDEX_INCOMPATIBLE', /schema 1/));
  });

  test('update is conditional on the version read; a conflict answers false', async () => {
    const { client, calls, on } = mockedClient();
    let conflict = false;
    on('PUT', '/cs-meta/_doc/index', () =>
      conflict
        ? responseError(409, 'version_conflict_engine_exception', 'seq_no mismatch')
        : { result: 'updated' },
    );
    const meta = new ElasticsearchIndexMeta({ client, index: 'cs-meta' });
    const at = {
      meta: {
        schemaVersion: 2,
        analyzerVersion: ANALYZER_VERSION,
        embedder: null,
        dimensions: null,
        createdAt: 1_000,
        updatedAt: 1_000,
        root: '/repo',
        repositories: {},
      },
      seqNo: 7,
      primaryTerm: 2,
    };
    assert.equal(await meta.update(at, { embedder: 'ollama:x', dimensions: 768 }), true);
    assert.deepEqual(calls[0]!.querystring, { if_seq_no: '7', if_primary_term: '2' });
    assert.deepEqual(
      calls[0]!.body,
      metaDoc({ embedder: 'ollama:x', dimensions: 768, root: '/repo' }),
    );
    assert.equal(await meta.update(at, { root: null, repositories: { api: '/r/api' } }), true);
    assert.deepEqual(
      calls[1]!.body,
      metaDoc({ root: null, repositories: { api: '/r/api' } }),
      'repositories are written once there are any',
    );
    conflict = true;
    assert.equal(await meta.update(at, { root: '/other' }), false);
  });

  test('touch records the time of a write in its own doc', async () => {
    const { client, calls, on } = mockedClient();
    on('PUT', '/cs-meta/_doc/updated', { result: 'updated' });
    const meta = new ElasticsearchIndexMeta({ client, index: 'cs-meta', now: () => 42 });
    await meta.touch();
    assert.deepEqual(calls[0]!.body, { updated_at: 42 });
  });

  test('no meta doc means no index yet', async () => {
    const { client, on } = mockedClient();
    on('POST', '/cs-meta/_mget', { docs: [{ _id: 'index', found: false }] });
    const meta = new ElasticsearchIndexMeta({ client, index: 'cs-meta' });
    await assert.rejects(meta.read(), isCode('INDEX_NOT_FOUND'));
  });
});
