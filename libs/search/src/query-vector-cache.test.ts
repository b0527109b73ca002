import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Embedder } from '@codesift/models';
import { withQueryVectorCache } from './query-vector-cache.js';

/** A model stand-in that counts the texts it embeds; the vector is derived from the text. */
function countingEmbedder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    name: 'test:count',
    dimensions: 2,
    maxBatch: 8,
    async embed(batch) {
      texts.push(...batch);
      return batch.map((t) => new Float32Array([t.length, texts.length]));
    },
    close: async () => {},
  };
}

test('a repeated single query is answered from the cache with the model’s own vector', async () => {
  const inner = countingEmbedder();
  const cached = withQueryVectorCache(inner, 2);
  const [first] = await cached.embed(['parse a money amount']);
  const [again] = await cached.embed(['parse a money amount']);
  assert.deepEqual(again, first);
  assert.deepEqual(inner.texts, ['parse a money amount']);
  // What a caller does to its vector does not reach the cache.
  again![0] = -1;
  assert.deepEqual(await cached.embed(['parse a money amount']), [first]);
  assert.equal(cached.name, inner.name);
  assert.equal(cached.dimensions, inner.dimensions);
});

test('batches go to the model as they are, and are neither answered from nor kept in the cache', async () => {
  const inner = countingEmbedder();
  const cached = withQueryVectorCache(inner, 4);
  await cached.embed(['a b']);
  await cached.embed(['a b', 'c d']);
  await cached.embed(['c d']);
  assert.deepEqual(inner.texts, ['a b', 'a b', 'c d', 'c d']);
});

test('the least recently used query is forgotten first', async () => {
  const inner = countingEmbedder();
  const cached = withQueryVectorCache(inner, 2);
  for (const q of ['one', 'two', 'one', 'three', 'one', 'two']) await cached.embed([q]);
  assert.deepEqual(inner.texts, ['one', 'two', 'three', 'two']);
});
