// The writer stage on a real nats-server and a real SQLite index: after a
// burst of writes goes quiet it optimizes the index, so the query side
// searches vectors through the saved HNSW graph instead of an exact scan.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ensureStreams, publish } from '@codesift/bus';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { type Chunk, chunkId } from '@codesift/core';
import { createLogger, type RunningStage, runStage } from '@codesift/service-kit';
import { HNSW_DEFAULTS, openSqliteIndex } from '@codesift/stores';
import { chunkToWire, vectorToWire } from '@codesift/wire';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { writerStage } from './writer.js';

const quiet = createLogger('test', { write: () => undefined });
const DIMS = 16;

let work: string;
let server: NatsServerHandle;
let nc: NatsConnection;
let writer: RunningStage | undefined;

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'codesift-writer-'));
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  await ensureStreams(await jetstreamManager(nc));
});
after(async () => {
  await writer?.stop();
  await nc?.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A file of `n` one-line chunks with deterministic unit vectors. */
function embeddedFile(fileNo: number, n: number) {
  const p = `src/f${fileNo}.ts`;
  const chunks: Chunk[] = [];
  const vectors: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const content = `export const v${fileNo}_${i} = ${i};`;
    chunks.push({
      id: chunkId(p, i + 1, i + 1, content),
      path: p,
      language: 'typescript',
      startLine: i + 1,
      endLine: i + 1,
      symbol: null,
      kind: 'block',
      content,
    });
    const v = new Float32Array(DIMS);
    for (let d = 0; d < DIMS; d++) v[d] = Math.sin(fileNo * 31 + i * 7 + d);
    const norm = Math.hypot(...v);
    vectors.push(v.map((x) => x / norm));
  }
  return {
    path: p,
    language: 'typescript',
    hash: `h${fileNo}`,
    size: 100n,
    mtimeMs: 1,
    chunks: chunks.map(chunkToWire),
    symbols: [],
    vectors: vectors.map(vectorToWire),
    embedder: 'test-embedder',
  };
}

test('after writes go quiet, the writer saves the HNSW graph the query side searches', {
  timeout: 120_000,
}, async () => {
  const indexPath = path.join(work, 'index.db');
  writer = await runStage(writerStage, {
    env: {
      NATS_URL: server.url,
      CODESIFT_INDEX: indexPath,
      CODESIFT_OPTIMIZE_IDLE_MS: '200',
      CODESIFT_PULL_EXPIRES_MS: '1000',
    },
    handleSignals: false,
    log: quiet,
  });
  const js = jetstream(nc);
  // Enough vectors for the graph (below the threshold search scans exactly anyway).
  const files = Math.ceil(HNSW_DEFAULTS.minVectors / 100);
  for (let f = 0; f < files; f += 10) {
    await publish(js, 'embedded', {
      jobId: 'job-hnsw',
      files: Array.from({ length: Math.min(10, files - f) }, (_, k) => embeddedFile(f + k, 100)),
    });
  }
  const deadline = Date.now() + 60_000;
  let state: string | undefined;
  while (Date.now() < deadline) {
    const index = openSqliteIndex(indexPath, { readonly: true });
    try {
      const s = index.vectorIndexState();
      if (index.stats().vectors === files * 100 && s.mode === 'hnsw') {
        state = s.reason;
        break;
      }
    } finally {
      index.close();
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // Without the idle optimize the graph would only be saved when the writer closes.
  assert.equal(state, 'fresh', 'the saved graph matches the database');
});
