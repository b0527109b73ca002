/**
 * Store selection from the environment, and the query path end to end over
 * the cluster stores: the writer opens its store from env, commits, and the
 * search engine (openEngine, the same code as local mode) answers from the
 * SearchIndex opened from the same env.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { analyze } from '@codesift/analysis';
import { type Chunk, CodesiftError } from '@codesift/core';
import type { Embedder } from '@codesift/models';
import { openEngine } from '@codesift/search';
import type { FileCommit } from '@codesift/stores';
import { responseError } from '@codesift/stores-elasticsearch/testing';
import { type FakeQdrant, startFakeQdrant } from '@codesift/stores-qdrant/testing';
import { ClusterIndex } from './cluster-index.js';
import { openSearchIndexFromEnv, openWriterStoreFromEnv, storesFromEnv } from './env.js';
import { type FakeElasticsearch, startFakeElasticsearch } from './testing/fake-elasticsearch.js';

const isCode = (code: string, pattern?: RegExp) => (e: unknown) =>
  e instanceof CodesiftError &&
  e.code === code &&
  (pattern === undefined || pattern.test(`${e.message} ${e.hint ?? ''}`));

describe('storesFromEnv', () => {
  test('sqlite is the default and needs CODESIFT_INDEX', () => {
    assert.deepEqual(storesFromEnv({ CODESIFT_INDEX: 'data/index.db' }), {
      kind: 'sqlite',
      indexPath: path.resolve('data/index.db'),
    });
    assert.throws(() => storesFromEnv({}), isCode('INVALID_ARGUMENT', /needs CODESIFT_INDEX/));
    assert.throws(
      () => storesFromEnv({ CODESIFT_STORE: 'sqlite', CODESIFT_INDEX: '  ' }),
      isCode('INVALID_ARGUMENT', /CODESIFT_INDEX/),
    );
  });

  test('elastic needs ES_URL and QDRANT_URL; keys and name are optional', () => {
    const base = {
      CODESIFT_STORE: 'elastic',
      ES_URL: 'http://es:9200/',
      QDRANT_URL: 'https://q:6333',
    };
    assert.deepEqual(storesFromEnv(base), {
      kind: 'elastic',
      esUrl: 'http://es:9200',
      qdrantUrl: 'https://q:6333',
      name: 'codesift',
    });
    assert.deepEqual(
      storesFromEnv({
        ...base,
        ES_API_KEY: 'k1',
        QDRANT_API_KEY: 'k2',
        CODESIFT_INDEX_NAME: 'repo-a',
      }),
      {
        kind: 'elastic',
        esUrl: 'http://es:9200',
        qdrantUrl: 'https://q:6333',
        name: 'repo-a',
        esApiKey: 'k1',
        qdrantApiKey: 'k2',
      },
    );
    assert.throws(
      () => storesFromEnv({ ...base, ES_URL: '' }),
      isCode('INVALID_ARGUMENT', /needs ES_URL.*ES_URL=http:\/\/elasticsearch:9200/),
    );
    assert.throws(
      () => storesFromEnv({ ...base, QDRANT_URL: undefined }),
      isCode('INVALID_ARGUMENT', /needs QDRANT_URL/),
    );
    assert.throws(
      () => storesFromEnv({ ...base, ES_URL: 'es:9200' }),
      isCode('INVALID_ARGUMENT', /http/),
    );
    assert.throws(
      () => storesFromEnv({ ...base, QDRANT_URL: 'not a url' }),
      isCode('INVALID_ARGUMENT', /not a URL/),
    );
    assert.throws(
      () => storesFromEnv({ ...base, CODESIFT_INDEX_NAME: 'Repo A' }),
      isCode('INVALID_ARGUMENT', /invalid index name/),
    );
  });

  test('an unknown store is refused with the choices', () => {
    assert.throws(
      () => storesFromEnv({ CODESIFT_STORE: 'mongo' }),
      isCode('INVALID_ARGUMENT', /unknown CODESIFT_STORE 'mongo'.*sqlite, elastic/),
    );
  });
});

describe('sqlite from env', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-stores-env-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the writer creates the file; the reader opens it read-only, or says it is missing', async () => {
    const env = { CODESIFT_INDEX: path.join(dir, 'index.db') };
    await assert.rejects(openSearchIndexFromEnv(env), isCode('INDEX_NOT_FOUND'));
    const writer = await openWriterStoreFromEnv(env);
    assert.equal(writer.location, env.CODESIFT_INDEX);
    await writer.ensureEmbedder(null, null);
    await writer.commitFiles([fileCommit('a.ts', [['a1', 'const a = 1;']], null)]);
    await writer.close();
    const reader = await openSearchIndexFromEnv(env);
    assert.equal((await reader.stats()).files, 1);
    assert.equal((await reader.chunks.get(['a1']))[0]?.content, 'const a = 1;');
    await reader.close();
  });
});

function hashEmbedder(dimensions = 16): Embedder {
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dimensions);
    for (const t of analyze(text)) {
      let h = 2166136261;
      for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
      v[(h >>> 0) % dimensions]! += 1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  return {
    name: 'test:hash-16',
    dimensions,
    maxBatch: 64,
    embed: async (texts) => texts.map(embedOne),
    close: async () => {},
  };
}

function fileCommit(
  file: string,
  parts: [id: string, content: string, symbol?: string][],
  embedder: Embedder | null,
): FileCommit {
  let line = 1;
  const chunks: Chunk[] = parts.map(([id, content, symbol]) => {
    const n = content.split('\n').length;
    const c: Chunk = {
      id,
      path: file,
      language: file.endsWith('.py') ? 'python' : 'typescript',
      startLine: line,
      endLine: line + n - 1,
      symbol: symbol ?? null,
      kind: symbol ? 'function' : 'block',
      content,
    };
    line += n;
    return c;
  });
  const vectors = embedder
    ? chunks.map((c) => {
        const v = new Float32Array(embedder.dimensions);
        for (const t of analyze(c.content)) {
          let h = 2166136261;
          for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
          v[(h >>> 0) % embedder.dimensions]! += 1;
        }
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      })
    : null;
  return {
    record: {
      path: file,
      hash: `h-${file}`,
      size: 1,
      mtimeMs: 1,
      language: chunks[0]?.language ?? 'typescript',
      chunkCount: chunks.length,
      symbolCount: 0,
      indexedAt: 1,
    },
    chunks,
    vectors,
    symbols: [],
  };
}

describe('the cluster stores from env, writer to search engine', () => {
  let qdrant: FakeQdrant;
  let es: FakeElasticsearch;
  before(async () => {
    qdrant = await startFakeQdrant();
    es = startFakeElasticsearch();
    // The mock's connections cannot close; the index closes the client it was handed.
    es.client.close = async () => {};
  });
  after(() => qdrant.close());

  const env = () => ({
    CODESIFT_STORE: 'elastic',
    ES_URL: 'http://es.test:9200',
    QDRANT_URL: qdrant.url,
    CODESIFT_INDEX_NAME: 'e2e',
  });
  const connectElasticsearch = () => es.client;

  test('a reader before any writer gets INDEX_NOT_FOUND', async () => {
    await assert.rejects(
      openSearchIndexFromEnv(env(), { connectElasticsearch }),
      isCode('INDEX_NOT_FOUND'),
    );
  });

  test('what the writer commits, openEngine finds, hydrated from Elasticsearch', async () => {
    const embedder = hashEmbedder();
    const writer = await openWriterStoreFromEnv(env(), { connectElasticsearch });
    assert.ok(writer instanceof ClusterIndex);
    await writer.ensureEmbedder(embedder.name, embedder.dimensions);
    await writer.setRoot('/repo');
    await writer.commitFiles([
      fileCommit(
        'src/queue.ts',
        [
          ['q1', 'export function enqueueJob(queue, job) {\n  queue.push(job);\n}', 'enqueueJob'],
          ['q2', 'export function drainQueue(queue) {\n  return queue.splice(0);\n}', 'drainQueue'],
        ],
        embedder,
      ),
      fileCommit(
        'py/invoice.py',
        [
          [
            'p1',
            'def invoice_total(lines):\n    return sum(l.amount for l in lines)',
            'invoice_total',
          ],
        ],
        embedder,
      ),
    ]);
    const index = await openSearchIndexFromEnv(env(), { connectElasticsearch });
    const engine = await openEngine({ index, embedder });
    try {
      const r = await engine.search({ query: 'enqueue job', explain: true });
      assert.deepEqual(r.degraded, []);
      assert.equal(r.totalChunks, 3);
      const top = r.results[0]!;
      assert.equal(top.chunkId, 'q1');
      assert.equal(top.path, 'src/queue.ts');
      assert.equal(top.symbol, 'enqueueJob');
      assert.match(top.snippet, /queue\.push\(job\)/);
      assert.ok(
        top.explain?.keyword !== null && top.explain?.vector !== null,
        'both sides found it',
      );
      const py = await engine.search({ query: 'invoice total lang:python' });
      assert.deepEqual(
        py.results.map((x) => x.path),
        ['py/invoice.py'],
      );
      const status = await engine.status();
      assert.equal(status.files, 2);
      assert.equal(status.vectors, 3);
      assert.equal(status.embedder, embedder.name);
      assert.match(status.indexPath, /elasticsearch http:\/\/es\.test:9200.*e2e-chunks/);

      // Elasticsearch's search failing degrades the answer to the vector side.
      es.fault = (_m, p) =>
        p.endsWith('e2e-chunks/_search')
          ? responseError(503, 'search_phase_execution_exception', 'all shards failed')
          : undefined;
      const degraded = await engine.search({ query: 'drain the queue' });
      assert.equal(degraded.degraded.length, 1);
      assert.match(degraded.degraded[0]!, /^keyword: .*all shards failed/);
      assert.equal(degraded.results[0]?.chunkId, 'q2');
    } finally {
      es.fault = undefined;
      await engine.close();
      await writer.close();
    }
  });
});
