// codesift-query on the elastic store set: a real nats-server and gRPC, the
// in-memory Elasticsearch behind the official client mock, the loopback
// fake Qdrant. The service starts before any writer created the stores and
// waits; once the writer has committed, Search over gRPC answers from them.
// (Scores are the fake's BM25 over its own docs, close to a real server's.)
// With a fake model, the LLM rewrite's vocabulary comes from the symbol
// service over NATS.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { serveSymbolIndex } from '@codesift/cluster-services';
import type { Chunk, FileRecord, SymbolInfo } from '@codesift/core';
import { connectCodesift } from '@codesift/grpc';
import { promptText, startFakeLlmServer } from '@codesift/llm/testing';
import { createLogger } from '@codesift/service-kit';
import { openSqliteIndex } from '@codesift/stores';
import { openWriterStoreFromEnv } from '@codesift/stores-cluster';
import { type FakeElasticsearch, startFakeElasticsearch } from '@codesift/stores-cluster/testing';
import { type FakeQdrant, startFakeQdrant } from '@codesift/stores-qdrant/testing';
import { connect } from '@nats-io/transport-node';
import { type RunningQueryService, startQueryService } from './main.js';

const quiet = createLogger('test', { write: () => undefined });

let nats: NatsServerHandle;
let qdrant: FakeQdrant;
let es: FakeElasticsearch;

before(async () => {
  nats = await startNatsServer();
  qdrant = await startFakeQdrant();
  es = startFakeElasticsearch();
  // The mock's connections cannot close; every opened index closes the client it was handed.
  es.client.close = async () => {};
});
after(async () => {
  await qdrant?.close();
  await nats?.stop();
});

function chunk(path: string, startLine: number, content: string, symbol: string): Chunk {
  const endLine = startLine + content.split('\n').length - 1;
  return {
    id: `${path}:${startLine}`,
    path,
    language: 'typescript',
    startLine,
    endLine,
    symbol,
    kind: 'function',
    content,
  };
}

test('waits for the writer to create the stores, then searches them over gRPC', {
  timeout: 60_000,
}, async () => {
  const env = {
    NATS_URL: nats.url,
    CODESIFT_STORE: 'elastic',
    ES_URL: 'http://es.test:9200',
    QDRANT_URL: qdrant.url,
    CODESIFT_INDEX_NAME: 'qs',
    CODESIFT_EMBEDDER: 'none',
    CODESIFT_GRPC_HOST: '127.0.0.1',
    CODESIFT_INSECURE_NO_AUTH: '1',
    CODESIFT_GRPC_PORT: '0',
    CODESIFT_INDEX_POLL_MS: '100',
  };
  const connectElasticsearch = () => es.client;
  let service: RunningQueryService | undefined;
  const starting = startQueryService(env, quiet, { connectElasticsearch }).then((s) => {
    service = s;
    return s;
  });
  // No stores yet: the service is still waiting for them.
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(service, undefined, 'it waits while the stores do not exist');

  const writer = await openWriterStoreFromEnv(env, { connectElasticsearch });
  try {
    await writer.ensureEmbedder(null, null);
    await writer.setRoot('/repo');
    const content = 'export function enqueueJob(queue, job) {\n  queue.push(job);\n}';
    const record: FileRecord = {
      path: 'src/queue.ts',
      hash: 'h1',
      size: content.length,
      mtimeMs: 1,
      language: 'typescript',
      chunkCount: 1,
      symbolCount: 0,
      indexedAt: Date.now(),
    };
    await writer.commitFiles([
      {
        record,
        chunks: [chunk('src/queue.ts', 1, content, 'enqueueJob')],
        vectors: null,
        symbols: [],
      },
    ]);
  } finally {
    await writer.close();
  }

  const running = await starting;
  const client = connectCodesift(running.address);
  try {
    const res = await client.search.search({ query: 'enqueueJob', limit: 5 });
    assert.deepEqual(
      res.results.map((r) => [r.path, r.symbol]),
      [['src/queue.ts', 'enqueueJob']],
    );
    assert.match(res.results[0]!.snippet, /queue\.push\(job\)/);
    // No symbol service runs here: the answer loses the definition boost, flagged, not its results.
    assert.ok(
      res.degraded.some((d) => d.startsWith('definitions: no symbols service')),
      res.degraded.join('; '),
    );
    const status = await client.index.getIndexStatus({});
    assert.equal(Number(status.files), 1);
    assert.match(status.indexPath, /qs-chunks/);
  } finally {
    client.close();
    await running.stop();
  }
});

test('the LLM rewrite and GetVocabulary terms read the symbol service over NATS', {
  timeout: 60_000,
}, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'codesift-query-related-'));
  const fake = await startFakeLlmServer({
    models: ['qwen3:0.6b'],
    mode: { kind: 'vocabulary-echo' },
  });
  // The symbol service's own store, answering in its queue group as the symbols stage does.
  const symbolStore = openSqliteIndex(path.join(dir, 'symbols.db'), { create: true });
  const nc = await connect({ servers: nats.url });
  const symbolService = serveSymbolIndex(nc, symbolStore.symbols);
  const env = {
    NATS_URL: nats.url,
    CODESIFT_STORE: 'elastic',
    ES_URL: 'http://es.test:9200',
    QDRANT_URL: qdrant.url,
    CODESIFT_INDEX_NAME: 'qr',
    CODESIFT_EMBEDDER: 'none',
    CODESIFT_GRPC_HOST: '127.0.0.1',
    CODESIFT_INSECURE_NO_AUTH: '1',
    CODESIFT_GRPC_PORT: '0',
    OLLAMA_HOST: fake.url,
    CODESIFT_LLM_MODEL: 'qwen3:0.6b',
  };
  const connectElasticsearch = () => es.client;
  const files = [
    {
      path: 'src/graph.ts',
      text: 'export class GraphStore {\n  addEdge(a, b) {\n    this.links.set(a, b);\n  }\n}',
      symbols: [sym('GraphStore', 'class', 1, 5), sym('addEdge', 'method', 2, 4, 'GraphStore')],
    },
    {
      path: 'src/flags.ts',
      text: 'export function parseFlags(argv) {\n  return argv.filter((a) => a.startsWith("--"));\n}',
      symbols: [sym('parseFlags', 'function', 1, 3, null, 'src/flags.ts')],
    },
  ];
  const writer = await openWriterStoreFromEnv(env, { connectElasticsearch });
  try {
    await writer.ensureEmbedder(null, null);
    await writer.setRoot('/repo');
    await writer.commitFiles(
      files.map((f) => ({
        record: {
          path: f.path,
          hash: f.path,
          size: f.text.length,
          mtimeMs: 1,
          language: 'typescript',
          chunkCount: 1,
          symbolCount: f.symbols.length,
          indexedAt: Date.now(),
        },
        chunks: [chunk(f.path, 1, f.text, f.symbols[0]!.name)],
        vectors: null,
        // The cluster writer leaves symbols to the symbol service's stage.
        symbols: [],
      })),
    );
  } finally {
    await writer.close();
  }
  await symbolStore.symbols.upsert(files.flatMap((f) => f.symbols));

  const running = await startQueryService(env, quiet, { connectElasticsearch });
  const client = connectCodesift(running.address);
  try {
    const question = 'how does a new edge get into the graph store';
    const before = fake.generations().length;
    const res = await client.search.search({ query: question, rewrite: true, explain: true });
    const sent = fake.generations().slice(before);
    assert.equal(sent.length, 1, res.degraded.join('; '));
    // The slice the model got is the store's `related` answer (name parts), carried
    // over NATS; a lookup by name prefix, word by word, would find GraphStore alone.
    const lines = promptText(sent[0]!)
      .split('\n')
      .filter((l) => /^\S+ \[\w+\] \S+$/.test(l));
    assert.deepEqual(lines, ['GraphStore [class] src/graph.ts', 'addEdge [method] src/graph.ts']);
    const plan = JSON.parse(res.planJson);
    assert.deepEqual(plan.llmRewrite.terms, ['GraphStore', 'addEdge']);
    assert.equal(plan.llmRewrite.fallback, null);
    assert.ok(plan.keyword.terms.some((t: { source: string }) => t.source === 'rewrite'));
    assert.equal(res.results[0]?.path, 'src/graph.ts');
    // GetVocabulary with terms: the store's slice for those words (a tie: the shorter
    // name first), with each name's count.
    const vocab = await client.symbols.getVocabulary({ terms: ['graph', 'edge'], limit: 10 });
    assert.deepEqual(
      vocab.entries.map((e) => [e.name, Number(e.count)]),
      [
        ['addEdge', 1],
        ['GraphStore', 1],
      ],
    );
    // The symbol service down: the rewrite falls back, the search still answers.
    await symbolService.stop();
    const down = await client.search.search({ query: question, rewrite: true });
    assert.ok(down.results.length > 0);
    assert.ok(
      down.degraded.includes(
        'rewrite: no vocabulary: no symbols service answers codesift.svc.symbols.related',
      ),
      down.degraded.join('; '),
    );
  } finally {
    client.close();
    await running.stop();
    await symbolService.stop();
    await nc.close();
    symbolStore.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function sym(
  name: string,
  kind: string,
  startLine: number,
  endLine: number,
  parent: string | null = null,
  file = 'src/graph.ts',
): SymbolInfo {
  return {
    id: `${file}:${name}`,
    name,
    qualifiedName: parent ? `${parent}.${name}` : name,
    kind: kind as SymbolInfo['kind'],
    path: file,
    language: 'typescript',
    startLine,
    endLine,
    parent,
    signature: `${name}()`,
    doc: '',
  };
}
