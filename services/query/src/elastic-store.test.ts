// codesift-query on the elastic store set: a real nats-server and gRPC, the
// in-memory Elasticsearch behind the official client mock, the loopback
// fake Qdrant. The service starts before any writer created the stores and
// waits; once the writer has committed, Search over gRPC answers from them.
// (Scores are the fake's term counts, not BM25: this checks the wiring.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import type { Chunk, FileRecord } from '@codesift/core';
import { connectCodesift } from '@codesift/grpc';
import { createLogger } from '@codesift/service-kit';
import { openWriterStoreFromEnv } from '@codesift/stores-cluster';
import { type FakeElasticsearch, startFakeElasticsearch } from '@codesift/stores-cluster/testing';
import { type FakeQdrant, startFakeQdrant } from '@codesift/stores-qdrant/testing';
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
