import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { createOllamaEmbedder } from './ollama-embedder.js';
import { type FakeOllama, fakeEmbedding, startFakeOllama } from './testing/fake-ollama.js';

let fake: FakeOllama;
before(async () => {
  fake = await startFakeOllama({ models: ['nomic-embed-text', 'all-minilm:l6-v2'], dimensions: 8 });
});
after(async () => {
  await fake.close();
});

function isError(code: string, hint?: RegExp): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof CodesiftError, `expected CodesiftError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (hint) assert.match(err.hint ?? '', hint);
    return true;
  };
}

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((a, x) => a + x * x, 0));
}

test('embeds in batches, probes the dimensions once and normalises', async () => {
  fake.requests.length = 0;
  const embedder = await createOllamaEmbedder({ host: fake.url, batchSize: 3 });
  assert.equal(embedder.name, 'ollama:nomic-embed-text');
  assert.equal(embedder.dimensions, 8);
  assert.equal(embedder.maxBatch, 3);
  const texts = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const vectors = await embedder.embed(texts);
  assert.equal(vectors.length, 7);
  const raw = fakeEmbedding('e', 8);
  const rawNorm = Math.sqrt(raw.reduce((a, x) => a + x * x, 0));
  for (const [i, x] of vectors[4]!.entries()) assert.ok(Math.abs(x - raw[i]! / rawNorm) < 1e-6);
  for (const v of vectors) assert.ok(Math.abs(norm(v) - 1) < 1e-6);
  const embeds = fake.requests.filter((r) => r.path === '/api/embed');
  assert.deepEqual(
    embeds.map((r) => r.body?.input),
    [['dimension probe'], ['a', 'b', 'c'], ['d', 'e', 'f'], ['g']],
  );
  assert.equal(embeds[1]!.body?.model, 'nomic-embed-text');
  await embedder.close();
});

test('known dimensions skip the probe', async () => {
  fake.requests.length = 0;
  const embedder = await createOllamaEmbedder({
    host: fake.url,
    model: 'all-minilm:l6-v2',
    dimensions: 8,
  });
  assert.equal(fake.requests.length, 0);
  assert.equal(embedder.name, 'ollama:all-minilm:l6-v2');
  assert.equal((await embedder.embed(['x']))[0]!.length, 8);
});

test('a server that is not running gives MODEL_UNAVAILABLE with a hint', async () => {
  const gone = await startFakeOllama();
  const url = gone.url;
  await gone.close();
  await assert.rejects(
    createOllamaEmbedder({ host: url }),
    isError('MODEL_UNAVAILABLE', /ollama serve/),
  );
});

test('a missing model suggests ollama pull', async () => {
  await assert.rejects(
    createOllamaEmbedder({ host: fake.url, model: 'mxbai-embed-large' }),
    isError('MODEL_UNAVAILABLE', /ollama pull mxbai-embed-large/),
  );
});

test('a slow server times out per request', async () => {
  const embedder = await createOllamaEmbedder({ host: fake.url, dimensions: 8, timeoutMs: 150 });
  fake.enqueue('/api/embed', { delayMs: 3000 });
  const started = Date.now();
  await assert.rejects(embedder.embed(['slow']), isError('TIMEOUT'));
  assert.ok(Date.now() - started < 2000);
  // The next request is unaffected.
  assert.equal((await embedder.embed(['fast'])).length, 1);
});

test('malformed replies are rejected', async () => {
  const embedder = await createOllamaEmbedder({ host: fake.url, dimensions: 8 });
  const cases = [
    { embeddings: [fakeEmbedding('a', 8)] }, // one vector for two inputs
    { embeddings: [fakeEmbedding('a', 8), [1, 2, 'x', 4, 5, 6, 7, 8]] },
    { embeddings: [fakeEmbedding('a', 8), [1, 2, null, 4, 5, 6, 7, 8]] },
    { json: { model: 'nomic-embed-text' } },
    { json: { embeddings: 'nope' } },
    { raw: '{"embeddings": [[1,2' },
  ];
  for (const reply of cases) {
    fake.enqueue('/api/embed', reply);
    await assert.rejects(
      embedder.embed(['a', 'b']),
      isError('MODEL_UNAVAILABLE', /embedding model/),
    );
  }
  fake.enqueue('/api/embed', { embeddings: [fakeEmbedding('a', 4), fakeEmbedding('b', 4)] });
  await assert.rejects(
    embedder.embed(['a', 'b']),
    isError('MODEL_UNAVAILABLE', /rebuild the index/),
  );
});

test('server errors and dropped connections are MODEL_UNAVAILABLE', async () => {
  const embedder = await createOllamaEmbedder({ host: fake.url, dimensions: 8 });
  fake.enqueue('/api/embed', { status: 500, error: 'llama runner process has terminated' });
  await assert.rejects(embedder.embed(['a']), (err: unknown) => {
    isError('MODEL_UNAVAILABLE')(err);
    assert.match((err as Error).message, /HTTP 500.*llama runner/);
    return true;
  });
  fake.enqueue('/api/embed', { hangUp: true });
  await assert.rejects(embedder.embed(['a']), isError('MODEL_UNAVAILABLE', /ollama serve/));
});

test("the caller's abort signal cancels a request", async () => {
  const embedder = await createOllamaEmbedder({ host: fake.url, dimensions: 8 });
  fake.enqueue('/api/embed', { delayMs: 3000 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(embedder.embed(['a'], { signal: controller.signal }), {
    name: 'AbortError',
  });
});

test('invalid options are refused', async () => {
  await assert.rejects(createOllamaEmbedder({ host: '' }), isError('INVALID_ARGUMENT'));
  await assert.rejects(
    createOllamaEmbedder({ host: fake.url, dimensions: 0 }),
    isError('INVALID_ARGUMENT'),
  );
});
