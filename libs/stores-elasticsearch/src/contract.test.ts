/**
 * The shared contract suites (and the chunk store, stale deletion and index
 * metadata) against a real Elasticsearch. The mock cannot index or rank, so
 * this only runs when ES_URL points at a server (e.g.
 * ES_URL=http://localhost:9200, ES_API_KEY optional); each store gets its own
 * index, deleted afterwards. Not run in this repository's CI: no server.
 * The Manifest contract also runs without a server, in
 * @codesift/stores-cluster, against its in-memory fake Elasticsearch.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Chunk } from '@codesift/core';
import { runKeywordIndexContract, runManifestContract } from '@codesift/stores/contract';
import { Client } from '@elastic/elasticsearch';
import { ElasticsearchChunkStore } from './chunk-store.js';
import { ElasticsearchIndexMeta } from './index-meta.js';
import { ElasticsearchKeywordIndex } from './keyword-index.js';
import { ElasticsearchManifest } from './manifest.js';

const url = process.env.ES_URL;
const apiKey = process.env.ES_API_KEY;
const runId = `${process.pid}-${Date.now().toString(36)}`;
let seq = 0;
const SKIP =
  'no server: set ES_URL (e.g. ES_URL=http://localhost:9200) to run the contract suites against Elasticsearch';

function client(): Client {
  return new Client({ node: url!, ...(apiKey ? { auth: { apiKey } } : {}) });
}

function indexName(what: string): string {
  return `codesift-contract-${runId}-${what}-${seq++}`;
}

function chunk(id: string, path: string, over: Partial<Chunk> = {}): Chunk {
  return {
    id,
    path,
    language: 'typescript',
    startLine: 1,
    endLine: 3,
    symbol: null,
    kind: 'block',
    content: `const ${id} = 1;`,
    ...over,
  };
}

// Without a server the whole suite is reported as skipped, with the reason.
describe('Elasticsearch stores on a real server', { skip: url ? false : SKIP }, () => {
  runKeywordIndexContract(`Elasticsearch at ${url}`, async () => {
    const c = client();
    const store = new ElasticsearchKeywordIndex({
      client: c,
      index: indexName('kw'),
      refresh: 'wait_for',
    });
    try {
      await store.ensureIndex();
    } catch (err) {
      await c.close();
      throw err;
    }
    return {
      store,
      close: async () => {
        try {
          await store.drop();
        } finally {
          await c.close();
        }
      },
    };
  });

  runManifestContract(`Elasticsearch at ${url}`, async () => {
    const c = client();
    const store = new ElasticsearchManifest({ client: c, index: indexName('manifest') });
    try {
      await store.ensureIndex();
    } catch (err) {
      await c.close();
      throw err;
    }
    return {
      store,
      close: async () => {
        try {
          await store.drop();
        } finally {
          await c.close();
        }
      },
    };
  });

  test(`chunk store and stale deletion: Elasticsearch at ${url}`, async () => {
    const c = client();
    const kw = new ElasticsearchKeywordIndex({ client: c, index: indexName('chunks') });
    try {
      await kw.ensureIndex();
      const full = chunk('a1', 'src/a.ts', {
        symbol: 'run',
        kind: 'function',
        signature: 'function run(): void',
        doc: 'Runs it.',
        context: 'src/a.ts: the runner',
      });
      await kw.upsert([full, chunk('a2', 'src/a.ts'), chunk('b1', 'src/b.ts')]);
      const chunks = new ElasticsearchChunkStore({ client: c, index: kw.index });
      assert.deepEqual(await chunks.get(['b1', 'missing', 'a1']), [chunk('b1', 'src/b.ts'), full]);
      await kw.deleteStale([
        { path: 'src/a.ts', keep: ['a1'] },
        { path: 'src/b.ts', keep: [] },
      ]);
      assert.deepEqual(
        (await chunks.get(['a1', 'a2', 'b1'])).map((x) => x.id),
        ['a1'],
      );
      assert.equal(await kw.count(), 1);
    } finally {
      await kw.drop();
      await c.close();
    }
  });

  test(`index metadata: Elasticsearch at ${url}`, async () => {
    const c = client();
    const meta = new ElasticsearchIndexMeta({ client: c, index: indexName('meta') });
    try {
      await meta.ensure();
      await meta.ensure();
      const first = await meta.read();
      assert.equal(first.meta.embedder, null);
      assert.equal(await meta.update(first, { embedder: 'test:e', dimensions: 8 }), true);
      // The version read before the update is stale now: a second writer loses.
      assert.equal(await meta.update(first, { embedder: 'test:other', dimensions: 4 }), false);
      await meta.touch(first.meta.createdAt + 10);
      const now = await meta.read();
      assert.equal(now.meta.embedder, 'test:e');
      assert.equal(now.meta.dimensions, 8);
      assert.equal(now.meta.updatedAt, first.meta.createdAt + 10);
    } finally {
      await meta.drop();
      await c.close();
    }
  });
});
