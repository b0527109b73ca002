// The contextualizer's transform: chunks in, the same chunks with their
// context sentence out. Pattern mode with no NATS; LLM mode against the
// loopback fake Ollama, its cache in a real nats-server's JetStream bucket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWork, type WorkFile } from '@codesift/bus';
import { startNatsServer } from '@codesift/bus/testing';
import { type Contextualizer, createPatternContextualizer } from '@codesift/context';
import { type FakeLlmServer, type FakeMode, startFakeLlmServer } from '@codesift/llm/testing';
import { createLogger } from '@codesift/service-kit';
import { chunkToWire } from '@codesift/wire';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { contextualizeBatch, contextualizerFromEnv } from './contextualizer.js';

const quiet = createLogger('test', { write: () => undefined });

function fileChunks(path: string) {
  return {
    path,
    language: 'typescript',
    hash: `h-${path}`,
    size: 40n,
    mtimeMs: 3,
    chunks: [
      chunkToWire({
        id: `${path}#1`,
        path,
        language: 'typescript',
        startLine: 2,
        endLine: 4,
        symbol: 'Graph.addEdge',
        kind: 'method',
        content: 'addEdge(a, b) {}',
      }),
    ],
    symbols: [],
  };
}

test('every chunk gets its pattern context; the rest of the file passes unchanged', async () => {
  const batch = createWork('chunks', { jobId: 'job-1', files: [fileChunks('src/graph.ts')] });
  const result = await contextualizeBatch(createPatternContextualizer(), batch);
  assert.deepEqual(result.failed, []);
  assert.equal(result.out?.length, 1);
  const out = result.out![0]!;
  assert.equal(out.queue, 'contextualized');
  const [file] = out.files as WorkFile<'contextualized'>[];
  assert.equal(file!.hash, 'h-src/graph.ts');
  assert.equal(file!.chunks[0]!.content, 'addEdge(a, b) {}');
  assert.equal(file!.chunks[0]!.contextSource, 'pattern');
  assert.equal(file!.chunks[0]!.contextFallback, '');
  assert.match(
    file!.chunks[0]!.context,
    /^Method addEdge \(add edge\) in Graph, lines 2-4 of TypeScript file src\/graph\.ts/,
  );
});

test('a file whose contexts cannot be made fails alone', async () => {
  const pattern = createPatternContextualizer();
  const failing: Contextualizer = {
    ...pattern,
    name: 'failing',
    async contextualizeFile(chunks) {
      if (chunks[0]?.path === 'bad.ts') throw new Error('no context');
      return pattern.contextualizeFile(chunks);
    },
  };
  const batch = createWork('chunks', {
    jobId: 'job-2',
    files: [fileChunks('bad.ts'), fileChunks('good.ts')],
  });
  const result = await contextualizeBatch(failing, batch);
  assert.deepEqual(
    result.failed?.map((f) => [f.file.path, f.reason]),
    [['bad.ts', 'contextualize: no context']],
  );
  assert.deepEqual(
    result.out?.[0]?.files.map((f) => f.path),
    ['good.ts'],
  );
});

type BatchResult = Awaited<ReturnType<typeof contextualizeBatch>>;

/** Each file's first chunk in a result. */
function firstChunks(result: BatchResult) {
  return (result.out![0]!.files as WorkFile<'contextualized'>[]).map((f) => f.chunks[0]!);
}

/** The context of each file's first chunk in a result. */
function firstContexts(result: BatchResult): string[] {
  return firstChunks(result).map((c) => c.context);
}

/** LLM mode as the stage builds it from its environment, on a fresh nats-server. */
async function withLlmStage(
  fake: FakeLlmServer,
  env: NodeJS.ProcessEnv,
  body: (make: () => ReturnType<typeof contextualizerFromEnv>) => Promise<void>,
) {
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  try {
    const js = jetstream(nc);
    const runtimeEnv = { OLLAMA_HOST: fake.url, CODESIFT_LLM_MODEL: 'qwen3:0.6b', ...env };
    await body(() => contextualizerFromEnv({ env: runtimeEnv, js, log: quiet }));
  } finally {
    await nc.close();
    await server.stop();
  }
}

test('no model configured: pattern mode, and nothing is asked', async () => {
  const fake = await startFakeLlmServer();
  try {
    const { contextualizer, cache } = await contextualizerFromEnv({
      env: {},
      js: undefined as never,
      log: quiet,
    });
    assert.equal(contextualizer.name, 'pattern');
    assert.equal(cache, undefined);
    assert.equal(fake.requests.length, 0);
  } finally {
    await fake.close();
  }
});

test('LLM mode: contexts from the model, cached in the shared bucket across replicas', async () => {
  const fake = await startFakeLlmServer({
    models: ['qwen3:0.6b'],
    mode: { kind: 'good', answer: { context: 'Adds an edge between two nodes of the graph.' } },
  });
  try {
    await withLlmStage(fake, {}, async (make) => {
      const one = await make();
      assert.equal(one.contextualizer.name, 'llm:qwen3:0.6b');
      const batch = createWork('chunks', {
        jobId: 'job-3',
        files: [fileChunks('src/a.ts'), fileChunks('src/b.ts')],
      });
      const first = await contextualizeBatch(one.contextualizer, batch);
      const contexts = firstContexts(first);
      assert.deepEqual(contexts, [
        'Adds an edge between two nodes of the graph.',
        'Adds an edge between two nodes of the graph.',
      ]);
      assert.deepEqual(
        firstChunks(first).map((c) => [c.contextSource, c.contextFallback]),
        [
          ['llm', ''],
          ['llm', ''],
        ],
      );
      assert.equal(fake.generations().length, 2);
      // The prompt carries the file's outline and the chunk.
      const prompt = JSON.stringify(fake.generations()[0]!.body);
      assert.match(prompt, /addEdge\(a, b\)/);
      assert.equal(await one.cache!.size(), 2);

      // A second replica (its own client and cache handle, the same bucket)
      // asks nothing for the same content.
      const two = await make();
      const again = await contextualizeBatch(two.contextualizer, batch);
      assert.deepEqual(firstContexts(again), contexts);
      assert.equal(fake.generations().length, 2);
    });
  } finally {
    await fake.close();
  }
});

/** A fault, the models the fake has, and the fallback reason recorded on the chunk. */
const FAULTS: [string, FakeMode, string[], string][] = [
  ['hangs', { kind: 'hang' }, ['qwen3:0.6b'], 'timeout'],
  ['answers HTTP 500', { kind: 'http', status: 500 }, ['qwen3:0.6b'], 'error'],
  ['answers garbage', { kind: 'invalid-json' }, ['qwen3:0.6b'], 'garbage'],
  [
    'is not installed',
    { kind: 'good', answer: { context: 'Never read.' } },
    ['other:1b'],
    'model-missing',
  ],
];

for (const [name, mode, models, reason] of FAULTS) {
  test(`LLM mode: a model that ${name} fails no file; chunks get their pattern context`, async () => {
    const fake = await startFakeLlmServer({ models, mode });
    try {
      await withLlmStage(fake, { CODESIFT_LLM_TIMEOUT_MS: '200' }, async (make) => {
        const { contextualizer } = await make();
        const batch = createWork('chunks', { jobId: 'job-4', files: [fileChunks('src/c.ts')] });
        const result = await contextualizeBatch(contextualizer, batch);
        assert.deepEqual(result.failed, []);
        const [chunk] = firstChunks(result);
        assert.match(chunk!.context, /^Method addEdge/);
        assert.deepEqual([chunk!.contextSource, chunk!.contextFallback], ['pattern', reason]);
      });
    } finally {
      await fake.close();
    }
  });
}
