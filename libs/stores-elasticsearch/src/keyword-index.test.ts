/**
 * The adapter against @elastic/elasticsearch-mock: the exact requests it
 * sends and how it reads canned responses. The mock cannot index or rank, so
 * ranking is left to contract.test.ts against a real server (ES_URL).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { ANALYZER_VERSION, analyze, analyzeQuery } from '@codesift/analysis';
import { CodesiftError } from '@codesift/core';
import type { KeywordDoc } from '@codesift/stores';
import { Client, type ClientOptions } from '@elastic/elasticsearch';
import type { MockPattern, ResolverFn } from '@elastic/elasticsearch-mock';
import { ElasticsearchKeywordIndex } from './keyword-index.js';
import { keywordIndexBody, keywordIndexTemplate } from './template.js';
import { MAX_ES_QUERY_TERMS } from './term-plan.js';

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

const INDEX = 'cs-test';

function setup(opts: { refresh?: 'wait_for' | boolean; bulkBatchDocs?: number } = {}) {
  const mock = new Mock();
  const client = new Client({
    node: 'http://localhost:9200',
    Connection: mock.getConnection(),
    maxRetries: 0,
  });
  const calls: MockPattern[] = [];
  const on = (method: string, path: string, reply: unknown | ((p: MockPattern) => unknown)) =>
    mock.add({ method, path }, (p: MockPattern) => {
      calls.push(p);
      return (typeof reply === 'function' ? reply(p) : reply) as Record<string, unknown>;
    });
  const store = new ElasticsearchKeywordIndex({ client, index: INDEX, ...opts });
  return { mock, client, calls, on, store };
}

/** Shapes of the request bodies the tests look into. */
interface SettingsShape {
  number_of_shards: number;
  analysis: {
    analyzer: Record<string, unknown>;
    tokenizer: Record<string, { type: string }>;
  };
  similarity: Record<string, unknown>;
}
type PropsShape = Record<string, { type?: string; properties?: Record<string, unknown> }>;
interface BulkLine {
  index?: { _id: string };
  terms?: { code: string };
}
interface TermClauseShape {
  bool: { should: { term: Record<string, { value: string }> }[] };
}
interface SearchShape {
  query: { bool: { should: TermClauseShape[] } };
}
interface TermvectorsShape {
  term_statistics: boolean;
  doc: { terms: Record<string, string> };
}

function responseError(statusCode: number, type: string, reason: string): Error {
  return new errors.ResponseError({
    body: { error: { type, reason }, status: statusCode },
    statusCode,
    headers: {},
    warnings: null,
    meta: {} as never,
  });
}

function doc(id: string, over: Partial<KeywordDoc> = {}): KeywordDoc {
  return {
    id,
    path: `src/${id}.ts`,
    language: 'typescript',
    startLine: 1,
    endLine: 10,
    symbol: null,
    kind: 'block',
    content: 'const x = 1;',
    context: '',
    ...over,
  };
}

const isCode = (code: string, pattern?: RegExp) => (e: unknown) =>
  e instanceof CodesiftError &&
  e.code === code &&
  (pattern === undefined || pattern.test(`${e.message} ${e.hint ?? ''}`));

describe('index settings and mapping', () => {
  test('ensureIndex creates the index with the code-aware analysis and BM25 settings', async () => {
    const { on, calls, store } = setup();
    // Nothing answers HEAD, so the mock says 404: the index does not exist.
    on('PUT', `/${INDEX}`, { acknowledged: true, index: INDEX });
    assert.equal(await store.ensureIndex(), true);
    const put = calls.find((c) => c.method === 'PUT')!;
    assert.deepEqual(put.body, JSON.parse(JSON.stringify(keywordIndexBody())));
    const body = put.body as ReturnType<typeof keywordIndexBody>;
    const s = body.settings as unknown as SettingsShape;
    assert.equal(s.number_of_shards, 1);
    assert.deepEqual(s.analysis.analyzer.codesift_terms, {
      type: 'custom',
      tokenizer: 'codesift_whitespace',
      filter: ['lowercase'],
    });
    assert.equal(s.analysis.tokenizer.codesift_whitespace?.type, 'whitespace');
    assert.deepEqual(s.similarity.codesift_bm25, { type: 'BM25', k1: 1.2, b: 0.75 });
    const props = body.mappings.properties as unknown as PropsShape;
    for (const f of ['id', 'path', 'language', 'symbol', 'kind']) {
      assert.equal(props[f]?.type, 'keyword', f);
    }
    assert.equal(props.start_line?.type, 'integer');
    for (const f of ['code', 'symbol', 'path', 'context']) {
      assert.deepEqual(props.terms?.properties?.[f], {
        type: 'text',
        analyzer: 'codesift_terms',
        similarity: 'codesift_bm25',
        index_options: 'freqs',
      });
    }
    // The raw chunk for the ChunkStore: in _source, never indexed.
    assert.deepEqual(props.chunk, { type: 'object', enabled: false });
    assert.equal(body.mappings.dynamic, 'strict');
    assert.deepEqual(body.mappings._meta, {
      codesift: { schema_version: 2, analyzer_version: ANALYZER_VERSION },
    });
  });

  test('shards and replicas are configurable; the template carries the same body', () => {
    const b = keywordIndexBody({ shards: 3, replicas: 1 });
    assert.equal(b.settings.number_of_shards, 3);
    assert.equal(b.settings.number_of_replicas, 1);
    const t = keywordIndexTemplate(['codesift-chunks-*']);
    assert.deepEqual(t.index_patterns, ['codesift-chunks-*']);
    assert.deepEqual(t.template, keywordIndexBody());
  });

  test('ensureIndex keeps a compatible index and rejects one from another version', async () => {
    const { on, calls, store } = setup();
    on('HEAD', `/${INDEX}`, '');
    let analyzerVersion: unknown = ANALYZER_VERSION;
    on('GET', `/${INDEX}/_mapping`, () => ({
      [INDEX]: {
        mappings: {
          _meta: { codesift: { schema_version: 2, analyzer_version: analyzerVersion } },
        },
      },
    }));
    assert.equal(await store.ensureIndex(), false);
    assert.ok(!calls.some((c) => c.method === 'PUT'));
    analyzerVersion = -1;
    await assert.rejects(store.ensureIndex(), isCode('INDEX_INCOMPATIBLE', /analyzer -1/));
  });

  test('a concurrent create is not an error', async () => {
    const { on, store } = setup();
    on('PUT', `/${INDEX}`, () =>
      responseError(400, 'resource_already_exists_exception', `index [${INDEX}] already exists`),
    );
    assert.equal(await store.ensureIndex(), false);
  });
});

describe('writes', () => {
  test('upsert sends bulk NDJSON with the chunk id as _id and the analyzer terms', async () => {
    const { on, calls, store } = setup();
    on('POST', `/${INDEX}/_bulk`, { errors: false, took: 1, items: [] });
    const a = doc('a', {
      content: 'export class OllamaEmbedder { embed(texts) {} }',
      symbol: 'OllamaEmbedder',
      signature: 'class OllamaEmbedder',
      kind: 'class',
      startLine: 3,
      endLine: 7,
      context: 'src/a.ts: embeddings through Ollama',
    });
    await store.upsert([
      { ...a, contextSource: 'pattern', contextFallback: 'garbage' },
      doc('b', { path: 'src/a.ts' }),
    ]);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.querystring?.refresh, 'wait_for');
    const pathTerms = analyze('src/a.ts').join(' ');
    assert.deepEqual(calls[0]!.body, [
      { index: { _id: 'a' } },
      {
        id: 'a',
        path: 'src/a.ts',
        language: 'typescript',
        start_line: 3,
        end_line: 7,
        symbol: 'OllamaEmbedder',
        kind: 'class',
        chunk: {
          content: a.content,
          context: a.context,
          signature: 'class OllamaEmbedder',
          context_source: 'pattern',
          context_fallback: 'garbage',
        },
        terms: {
          code: analyze(a.content).join(' '),
          symbol: analyze('OllamaEmbedder\nclass OllamaEmbedder').join(' '),
          path: pathTerms,
          context: analyze(a.context).join(' '),
        },
      },
      { index: { _id: 'b' } },
      {
        id: 'b',
        path: 'src/a.ts',
        language: 'typescript',
        start_line: 1,
        end_line: 10,
        symbol: null,
        kind: 'block',
        chunk: { content: 'const x = 1;', context: '' },
        terms: {
          code: analyze('const x = 1;').join(' '),
          symbol: '',
          path: pathTerms,
          context: '',
        },
      },
    ]);
    // The code-aware analysis: identifier parts plus the whole identifier, lowercased.
    const code = (calls[0]!.body as BulkLine[])[1]!.terms!.code.split(' ');
    for (const t of ['ollama', 'embedder', 'ollamaembedder']) assert.ok(code.includes(t), t);
  });

  test('upsert batches large writes, honours refresh: false, skips empty input', async () => {
    const { on, calls, store } = setup({ refresh: false, bulkBatchDocs: 2 });
    on('POST', `/${INDEX}/_bulk`, { errors: false, took: 1, items: [] });
    await store.upsert([]);
    assert.equal(calls.length, 0);
    await store.upsert([doc('a'), doc('b'), doc('c')]);
    assert.equal(calls.length, 2);
    assert.equal(calls[0]!.querystring?.refresh, 'false');
    assert.deepEqual(
      calls.map((c) =>
        (c.body as BulkLine[]).filter((_, i) => i % 2 === 0).map((l) => l.index?._id),
      ),
      [['a', 'b'], ['c']],
    );
  });

  test('bulk item failures (HTTP 200, errors: true) become a clear error', async () => {
    const { on, store } = setup();
    on('POST', `/${INDEX}/_bulk`, {
      errors: true,
      took: 1,
      items: [
        { index: { _index: INDEX, _id: 'a', status: 201, result: 'created' } },
        {
          index: {
            _index: INDEX,
            _id: 'b',
            status: 400,
            error: { type: 'strict_dynamic_mapping_exception', reason: 'mapping set to strict' },
          },
        },
      ],
    });
    await assert.rejects(
      store.upsert([doc('a'), doc('b')]),
      isCode('INTERNAL', /1 of 2 docs; first: b HTTP 400 strict_dynamic_mapping_exception/),
    );
  });

  test('deleteByPaths is one delete_by_query on the path keyword field', async () => {
    const { on, calls, store } = setup();
    on('POST', `/${INDEX}/_delete_by_query`, { deleted: 2, failures: [] });
    await store.deleteByPaths([]);
    assert.equal(calls.length, 0);
    await store.deleteByPaths(['src/a.ts', 'does/not/exist.ts', 'src/a.ts']);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.body, {
      query: { terms: { path: ['src/a.ts', 'does/not/exist.ts'] } },
    });
    assert.equal(calls[0]!.querystring?.refresh, 'true');
    assert.equal(calls[0]!.querystring?.conflicts, 'proceed');
  });

  test('delete_by_query failures become a clear error', async () => {
    const { on, store } = setup();
    on('POST', `/${INDEX}/_delete_by_query`, {
      deleted: 0,
      failures: [{ id: 'a', index: INDEX, status: 409, cause: { type: 'version_conflict' } }],
    });
    await assert.rejects(store.deleteByPaths(['src/a.ts']), isCode('INTERNAL', /version_conflict/));
  });
});

const WEIGHTS = { 'terms.code': 1, 'terms.symbol': 3, 'terms.path': 2, 'terms.context': 0.5 };

function expectedTermClause(term: string, boost: number) {
  return {
    bool: {
      should: Object.entries(WEIGHTS).map(([field, w]) => ({
        term: { [field]: { value: term, boost: w } },
      })),
      boost,
    },
  };
}

describe('search', () => {
  test('per-term should clauses with boosts and field weights, filters, size', async () => {
    const { on, calls, store } = setup();
    on('POST', `/${INDEX}/_search`, { hits: { hits: [] } });
    await store.search({
      terms: [
        { term: 'ollama', boost: 2 },
        { term: 'Embedder' },
        { term: 'ollama', boost: 1 },
        { term: 'ignored', boost: 0 },
        { term: '"' },
        { term: '' },
        { term: "'; DROP TABLE chunks; --" },
      ],
      limit: 7,
      filter: {
        languages: ['typescript', 'python'],
        pathPrefixes: ['src/', 'docs/'],
        excludePathPrefixes: ['src/gen/'],
      },
    });
    assert.deepEqual(calls[0]!.body, {
      size: 7,
      query: {
        bool: {
          should: [expectedTermClause('ollama', 2), expectedTermClause('embedder', 1)],
          minimum_should_match: 1,
          filter: [
            { terms: { language: ['typescript', 'python'] } },
            {
              bool: {
                should: [
                  { prefix: { path: { value: 'src/' } } },
                  { prefix: { path: { value: 'docs/' } } },
                ],
                minimum_should_match: 1,
              },
            },
          ],
          must_not: [{ prefix: { path: { value: 'src/gen/' } } }],
        },
      },
      _source: { includes: ['id', 'path', 'language', 'start_line', 'end_line', 'symbol', 'kind'] },
      track_total_hits: false,
    });
  });

  test('empty filters add no clauses', async () => {
    const { on, calls, store } = setup();
    on('POST', `/${INDEX}/_search`, { hits: { hits: [] } });
    await store.search({
      terms: [{ term: 'token' }],
      limit: 3,
      filter: { languages: [], pathPrefixes: [], excludePathPrefixes: [] },
    });
    assert.deepEqual((calls[0]!.body as SearchShape).query, {
      bool: { should: [expectedTermClause('token', 1)], minimum_should_match: 1 },
    });
  });

  test('no request for limit 0 or no usable terms', async () => {
    const { on, calls, store } = setup();
    on('POST', `/${INDEX}/_search`, { hits: { hits: [] } });
    assert.deepEqual(await store.search({ terms: [{ term: 'x' }], limit: 0 }), []);
    assert.deepEqual(await store.search({ terms: [], limit: 5 }), []);
    assert.deepEqual(await store.search({ terms: [{ term: '(' }, { term: '-' }], limit: 5 }), []);
    assert.equal(calls.length, 0);
  });

  test('hits map to KeywordHits with exact float scores, best first', async () => {
    const { on, store } = setup();
    on('POST', `/${INDEX}/_search`, {
      took: 2,
      timed_out: false,
      hits: {
        max_score: 2.4691358,
        hits: [
          {
            _index: INDEX,
            _id: 'a',
            _score: 2.4691358,
            _source: {
              id: 'a',
              path: 'src/a.ts',
              language: 'typescript',
              start_line: 3,
              end_line: 7,
              symbol: 'OllamaEmbedder',
              kind: 'class',
            },
          },
          {
            _index: INDEX,
            _id: 'b',
            _score: 1.2345679,
            _source: {
              id: 'b',
              path: 'lib/b.py',
              language: 'python',
              start_line: 1,
              end_line: 2,
              symbol: null,
              kind: 'block',
            },
          },
        ],
      },
    });
    const terms = analyzeQuery('ollama embedder').map((term) => ({ term }));
    const hits = await store.search({ terms, limit: 10 });
    assert.deepEqual(hits, [
      {
        id: 'a',
        path: 'src/a.ts',
        startLine: 3,
        endLine: 7,
        symbol: 'OllamaEmbedder',
        kind: 'class',
        language: 'typescript',
        score: Math.fround(2.4691358),
      },
      {
        id: 'b',
        path: 'lib/b.py',
        startLine: 1,
        endLine: 2,
        symbol: null,
        kind: 'block',
        language: 'python',
        score: Math.fround(1.2345679),
      },
    ]);
    // The float32 values ES computed: a boost of 2 is exactly twice the score.
    assert.equal(hits[0]!.score, 2 * hits[1]!.score);
  });

  test('long queries ask for term statistics first and run only the useful terms', async () => {
    const { on, calls, store } = setup();
    const many = Array.from({ length: 200 }, (_, i) => ({ term: `absent${i}` }));
    const query = [...many, { term: 'common' }, { term: 'needle', boost: 2 }];
    on('POST', `/${INDEX}/_termvectors`, {
      _index: INDEX,
      found: true,
      took: 1,
      term_vectors: {
        'terms.code': {
          field_statistics: { doc_count: 100, sum_doc_freq: 1000, sum_ttf: 2000 },
          terms: {
            absent0: { term_freq: 1 },
            common: { term_freq: 1, doc_freq: 90, ttf: 200 },
            needle: { term_freq: 1, doc_freq: 1, ttf: 1 },
          },
        },
      },
    });
    on('POST', `/${INDEX}/_search`, { hits: { hits: [] } });
    await store.search({ terms: query, limit: 5 });
    assert.equal(calls.length, 2);
    const tv = calls[0]!.body as TermvectorsShape;
    assert.equal(tv.term_statistics, true);
    const text = query.map((t) => t.term).join(' ');
    assert.deepEqual(tv.doc.terms, { code: text, symbol: text, path: text, context: text });
    assert.deepEqual((calls[1]!.body as SearchShape).query.bool.should, [
      expectedTermClause('common', 1),
      expectedTermClause('needle', 2),
    ]);
    assert.ok(query.length > MAX_ES_QUERY_TERMS);
  });

  test('long queries keep at most MAX_ES_QUERY_TERMS, the rarest', async () => {
    const { on, calls, store } = setup();
    const query = Array.from({ length: 100 }, (_, i) => ({ term: `t${i}` }));
    const terms: Record<string, object> = {};
    // t0 is the most common, t99 the rarest.
    query.forEach((t, i) => {
      terms[t.term] = { term_freq: 1, doc_freq: 100 - i };
    });
    on('POST', `/${INDEX}/_termvectors`, {
      term_vectors: { 'terms.symbol': { field_statistics: { doc_count: 1000 }, terms } },
    });
    on('POST', `/${INDEX}/_search`, { hits: { hits: [] } });
    await store.search({ terms: query, limit: 5 });
    const should = (calls[1]!.body as SearchShape).query.bool.should;
    assert.equal(should.length, MAX_ES_QUERY_TERMS);
    assert.equal(
      should[0]!.bool.should[0]!.term['terms.code']!.value,
      `t${100 - MAX_ES_QUERY_TERMS}`,
    );
    assert.equal(should.at(-1)!.bool.should[0]!.term['terms.code']!.value, 't99');
  });

  test('count reads _count', async () => {
    const { on, store } = setup();
    on('GET', `/${INDEX}/_count`, { count: 42 });
    on('POST', `/${INDEX}/_count`, { count: 42 });
    assert.equal(await store.count(), 42);
  });
});

describe('errors', () => {
  test('a missing index is INDEX_NOT_FOUND with a hint', async () => {
    const { on, store } = setup();
    const missing = () =>
      responseError(404, 'index_not_found_exception', `no such index [${INDEX}]`);
    on('POST', `/${INDEX}/_search`, missing);
    on('GET', `/${INDEX}/_count`, missing);
    on('POST', `/${INDEX}/_count`, missing);
    await assert.rejects(
      store.search({ terms: [{ term: 'x' }], limit: 1 }),
      isCode('INDEX_NOT_FOUND', /cs-test does not exist.*ensureIndex/),
    );
    await assert.rejects(store.count(), isCode('INDEX_NOT_FOUND'));
  });

  test('HTTP errors are INTERNAL and say what the server said', async () => {
    const { on, store } = setup();
    on('POST', `/${INDEX}/_search`, () =>
      responseError(500, 'search_phase_execution_exception', 'all shards failed'),
    );
    on('POST', `/${INDEX}/_bulk`, () =>
      responseError(403, 'security_exception', 'action [indices:data/write/bulk] is unauthorized'),
    );
    await assert.rejects(
      store.search({ terms: [{ term: 'x' }], limit: 1 }),
      isCode(
        'INTERNAL',
        /search on index cs-test failed with HTTP 500: search_phase_execution_exception: all shards failed.*cluster health/,
      ),
    );
    await assert.rejects(store.upsert([doc('a')]), isCode('INTERNAL', /HTTP 403.*credentials/));
  });

  test('connection failures and timeouts are clear', async () => {
    const { on, store } = setup();
    on('POST', `/${INDEX}/_search`, () => new errors.ConnectionError('connect ECONNREFUSED'));
    on('POST', `/${INDEX}/_delete_by_query`, () => new errors.TimeoutError('Request timed out'));
    await assert.rejects(
      store.search({ terms: [{ term: 'x' }], limit: 1 }),
      isCode('INTERNAL', /cannot reach Elasticsearch.*ECONNREFUSED.*ES_URL/),
    );
    await assert.rejects(store.deleteByPaths(['a.ts']), isCode('TIMEOUT', /timed out/));
  });
});
