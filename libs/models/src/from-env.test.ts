import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEmbedderFromEnv, embedderNameFromEnv, embedThreadsFromEnv } from './from-env.js';
import { startFakeOllama } from './testing/fake-ollama.js';

test('OLLAMA_HOST selects Ollama with CODESIFT_EMBED_MODEL', async () => {
  const fake = await startFakeOllama({ models: ['all-minilm'], dimensions: 12 });
  try {
    const embedder = await createEmbedderFromEnv({
      OLLAMA_HOST: fake.url,
      CODESIFT_EMBED_MODEL: 'all-minilm',
    });
    assert.equal(embedder.name, 'ollama:all-minilm');
    assert.equal(
      embedderNameFromEnv({ OLLAMA_HOST: fake.url, CODESIFT_EMBED_MODEL: 'all-minilm' }),
      embedder.name,
    );
    assert.equal(embedderNameFromEnv({ OLLAMA_HOST: fake.url }), 'ollama:nomic-embed-text');
    assert.equal(embedder.dimensions, 12);
    await embedder.close();
    const fallback = createEmbedderFromEnv({ OLLAMA_HOST: fake.url });
    // nomic-embed-text is not installed on this fake.
    await assert.rejects(fallback, /nomic-embed-text/);
  } finally {
    await fake.close();
  }
});

test('without OLLAMA_HOST the built-in model is used', async () => {
  const embedder = await createEmbedderFromEnv({ OLLAMA_HOST: '  ' });
  try {
    assert.equal(embedder.name, 'builtin:use-lite-512');
    assert.equal(embedderNameFromEnv({ OLLAMA_HOST: '  ' }), embedder.name);
    assert.equal(embedder.dimensions, 512);
  } finally {
    await embedder.close();
  }
});

test('CODESIFT_EMBED_THREADS: a positive integer (a container sets its CPU limit), else every core', () => {
  assert.equal(embedThreadsFromEnv({ CODESIFT_EMBED_THREADS: '2' }), 2);
  assert.equal(embedThreadsFromEnv({ CODESIFT_EMBED_THREADS: ' ' }), undefined);
  assert.equal(embedThreadsFromEnv({}), undefined);
  for (const bad of ['0', '1.5', '500m', 'all']) {
    assert.throws(
      () => embedThreadsFromEnv({ CODESIFT_EMBED_THREADS: bad }),
      /CODESIFT_EMBED_THREADS must be a positive integer/,
    );
  }
});
