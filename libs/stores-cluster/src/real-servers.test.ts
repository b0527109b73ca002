/**
 * ClusterIndex against a real Elasticsearch and a real Qdrant: the writer
 * path (embedder, commits with stale deletion, removal, manifest) and the
 * search engine over it. Runs only when both ES_URL and QDRANT_URL are set
 * (ES_API_KEY / QDRANT_API_KEY optional); each run uses its own store set
 * name and deletes it afterwards. Not run in this repository: no servers here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze } from '@codesift/analysis';
import type { Chunk } from '@codesift/core';
import type { Embedder } from '@codesift/models';
import { openEngine } from '@codesift/search';
import type { FileCommit } from '@codesift/stores';
import { Client } from '@elastic/elasticsearch';
import { ClusterIndex } from './cluster-index.js';

const esUrl = process.env.ES_URL;
const qdrantUrl = process.env.QDRANT_URL;

function embedder(dimensions = 16): Embedder {
  const one = (text: string) => {
    const v = new Float32Array(dimensions);
    for (const t of analyze(text)) {
      let h = 2166136261;
      for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
      v[(h >>> 0) % dimensions]! += 1;
    }
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  return {
    name: 'test:hash-16',
    dimensions,
    maxBatch: 64,
    embed: async (texts) => texts.map(one),
    close: async () => {},
  };
}

async function commit(e: Embedder, file: string, parts: [string, string][]): Promise<FileCommit> {
  const chunks: Chunk[] = parts.map(([id, content], i) => ({
    id,
    path: file,
    language: 'typescript',
    startLine: i * 10 + 1,
    endLine: i * 10 + 3,
    symbol: null,
    kind: 'block',
    content,
  }));
  return {
    record: {
      path: file,
      hash: parts.map((p) => p[0]).join('+'),
      size: 1,
      mtimeMs: 1,
      language: 'typescript',
      chunkCount: chunks.length,
      symbolCount: 0,
      indexedAt: Date.now(),
    },
    chunks,
    vectors: await e.embed(chunks.map((c) => c.content)),
    symbols: [],
  };
}

if (esUrl && qdrantUrl) {
  test(`ClusterIndex on Elasticsearch ${esUrl} + Qdrant ${qdrantUrl}`, async () => {
    const apiKey = process.env.ES_API_KEY;
    const es = new Client({ node: esUrl, ...(apiKey ? { auth: { apiKey } } : {}) });
    const ix = await ClusterIndex.open({
      es,
      ownsClient: true,
      qdrant: {
        url: qdrantUrl,
        ...(process.env.QDRANT_API_KEY ? { apiKey: process.env.QDRANT_API_KEY } : {}),
      },
      prefix: `codesift-test-${process.pid}-${Date.now().toString(36)}`,
      create: true,
    });
    const e = embedder();
    try {
      await ix.ensureEmbedder(e.name, e.dimensions);
      await ix.setRoot('/repo');
      await ix.commitFiles([
        await commit(e, 'src/queue.ts', [
          ['q1', 'export function enqueueJob(queue, job) { queue.push(job); }'],
          ['q2', 'export function drainQueue(queue) { return queue.splice(0); }'],
        ]),
        await commit(e, 'src/retry.ts', [['r1', 'export async function retryWithBackoff(op) {}']]),
      ]);
      await ix.commitFiles([
        await commit(e, 'src/queue.ts', [
          ['q1', 'export function enqueueJob(queue, job) { queue.push(job); }'],
        ]),
      ]);
      const stats = await ix.stats();
      assert.deepEqual(
        { ...stats, bytes: 0 },
        { files: 2, chunks: 2, symbols: 0, vectors: 2, bytes: 0 },
      );
      assert.deepEqual(
        (await ix.chunks.get(['q1', 'q2', 'r1'])).map((c) => c.id),
        ['q1', 'r1'],
      );
      await assert.rejects(ix.ensureEmbedder('test:other', 8), { code: 'INDEX_INCOMPATIBLE' });

      const engine = await openEngine({ index: ix, embedder: e });
      const r = await engine.search({ query: 'enqueue job' });
      assert.deepEqual(r.degraded, []);
      assert.equal(r.results[0]?.chunkId, 'q1');
      assert.equal(r.totalChunks, 2);

      await ix.removeFiles(['src/queue.ts']);
      assert.equal(await ix.manifest.get('src/queue.ts'), undefined);
      assert.equal((await ix.stats()).vectors, 1);
    } finally {
      await ix.drop();
      await ix.close();
    }
  });
} else {
  test('ClusterIndex on real servers', {
    skip: 'no servers: set ES_URL and QDRANT_URL (e.g. ES_URL=http://localhost:9200 QDRANT_URL=http://localhost:6333) to run ClusterIndex against real Elasticsearch and Qdrant',
  }, () => {});
}
