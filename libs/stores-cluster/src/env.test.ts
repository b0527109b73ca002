/**
 * Store selection from the environment, and the query path end to end over
 * the cluster stores: the writer opens its store from env, commits, and the
 * search engine (openEngine, the same code as local mode) answers from the
 * SearchIndex opened from the same env.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import {
  elasticClientOptions,
  openSearchIndexFromEnv,
  openWriterStoreFromEnv,
  storesFromEnv,
} from './env.js';
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

  test('Elasticsearch basic auth: both halves, and not with an API key', () => {
    const base = {
      CODESIFT_STORE: 'elastic',
      ES_URL: 'http://es:9200',
      QDRANT_URL: 'http://q:6333',
    };
    const s = storesFromEnv({ ...base, ES_USERNAME: 'elastic', ES_PASSWORD: 'pw' });
    assert.deepEqual(s.kind === 'elastic' && s.esBasic, { username: 'elastic', password: 'pw' });
    assert.throws(
      () => storesFromEnv({ ...base, ES_USERNAME: 'elastic' }),
      isCode('INVALID_ARGUMENT', /ES_PASSWORD is missing/),
    );
    assert.throws(
      () => storesFromEnv({ ...base, ES_PASSWORD: 'pw' }),
      isCode('INVALID_ARGUMENT', /ES_USERNAME is missing/),
    );
    assert.throws(
      () => storesFromEnv({ ...base, ES_USERNAME: 'u', ES_PASSWORD: 'p', ES_API_KEY: 'k' }),
      isCode('INVALID_ARGUMENT', /not both/),
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

/**
 * A loopback server that, like Elasticsearch with security on, answers 401
 * to a request without the expected Authorization header and the cluster
 * info otherwise: what the client really sends on the wire.
 */
async function securedElasticsearch(expected: string) {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    const ok = req.headers.authorization === expected;
    res.writeHead(ok ? 200 : 401, {
      'content-type': 'application/json',
      'x-elastic-product': 'Elasticsearch',
    });
    res.end(
      JSON.stringify(
        ok
          ? { name: 'fake', cluster_name: 'fake', version: { number: '9.1.0' }, tagline: 'x' }
          : {
              error: { type: 'security_exception', reason: 'missing authentication credentials' },
              status: 401,
            },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('the cluster stores send their credentials', () => {
  test('Elasticsearch: ES_USERNAME/ES_PASSWORD as basic auth, ES_API_KEY as ApiKey; none is refused', async () => {
    const { Client } = await import('@elastic/elasticsearch');
    const basic = `Basic ${Buffer.from('elastic:s3cret').toString('base64')}`;
    const es = await securedElasticsearch(basic);
    try {
      const env = { CODESIFT_STORE: 'elastic', ES_URL: es.url, QDRANT_URL: 'http://127.0.0.1:1' };
      const settings = storesFromEnv({ ...env, ES_USERNAME: 'elastic', ES_PASSWORD: 's3cret' });
      assert.equal(settings.kind, 'elastic');
      const client = new Client({ ...elasticClientOptions(settings as never), maxRetries: 0 });
      assert.equal((await client.info()).version.number, '9.1.0');
      await client.close();
      assert.equal(es.seen.at(-1), basic);
      // Without credentials the writer's first request is refused, with a hint.
      await assert.rejects(
        openWriterStoreFromEnv(env),
        isCode('INTERNAL', /HTTP 401.*check the credentials/),
      );
      assert.equal(es.seen.at(-1), undefined);
      const keyed = storesFromEnv({ ...env, ES_API_KEY: 'a2V5' });
      assert.deepEqual(elasticClientOptions(keyed as never).auth, { apiKey: 'a2V5' });
    } finally {
      await es.close();
    }
  });

  test('Qdrant: a server with an API key refuses the writer without QDRANT_API_KEY and takes it with', async () => {
    const qdrant = await startFakeQdrant({ apiKey: 'q-s3cret' });
    const es = startFakeElasticsearch();
    es.client.close = async () => {};
    const connectElasticsearch = () => es.client;
    const env = {
      CODESIFT_STORE: 'elastic',
      ES_URL: 'http://es.test:9200',
      QDRANT_URL: qdrant.url,
      CODESIFT_INDEX_NAME: 'keyed',
    };
    const embedder = hashEmbedder();
    try {
      const refused = await openWriterStoreFromEnv(
        { ...env, QDRANT_API_KEY: 'wrong' },
        { connectElasticsearch },
      );
      await assert.rejects(
        refused.ensureEmbedder(embedder.name, embedder.dimensions),
        isCode('INTERNAL', /HTTP 401.*QDRANT_API_KEY/),
      );
      await refused.close();
      assert.equal(qdrant.collections.size, 0);
      const writer = await openWriterStoreFromEnv(
        { ...env, QDRANT_API_KEY: 'q-s3cret' },
        { connectElasticsearch },
      );
      await writer.ensureEmbedder(embedder.name, embedder.dimensions);
      await writer.close();
      assert.ok(qdrant.collections.has('keyed-vectors'));
      assert.ok(qdrant.requests.every((r) => r.status !== 401 || r.error?.includes('API key')));
    } finally {
      await qdrant.close();
    }
  });
});
