/**
 * The store contract against a real Qdrant server when QDRANT_URL is set
 * (e.g. `docker run -p 6333:6333 qdrant/qdrant`). Each test uses a fresh
 * collection with a random name and deletes it afterwards.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { runVectorIndexContract } from '@codesift/stores/contract';
import { QdrantVectorIndex } from './vector-index.js';

const url = process.env.QDRANT_URL;

if (url) {
  runVectorIndexContract(`qdrant adapter on the real server at ${url}`, async ({ dimensions }) => {
    const store = await QdrantVectorIndex.open({
      url,
      collection: `codesift_contract_${randomUUID().slice(0, 8)}`,
      dimensions,
    });
    return { store, close: () => store.dropCollection() };
  });
} else {
  test('VectorIndex contract on a real Qdrant server', {
    skip: 'QDRANT_URL is not set (no Qdrant server here); the fake-server run covers the adapter',
  }, () => {});
}
