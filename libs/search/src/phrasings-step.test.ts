/**
 * The model's phrasings as query variants, over a real SQLite index and
 * the fake Ollama server on loopback (@codesift/llm/testing): one chat call
 * for N phrasings, cached per (index version, question), and every model
 * fault degrades the search instead of failing it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLlmClient, LLM_DEFAULTS } from '@codesift/llm';
import { type FakeLlmServer, type FakeRequest, startFakeLlmServer } from '@codesift/llm/testing';
import { openLocalEngine } from './engine.js';
import { LruCache } from './lru.js';
import { type IndexedTree, indexedTree } from './testing/fixtures.js';
import type { SearchEngine } from './types.js';

const TREE: Record<string, string> = {
  'src/retry.ts': `/** Retries a failing request with exponential backoff. */
export async function retryWithBackoff<T>(send: () => Promise<T>): Promise<T> {
  return send();
}
`,
  'src/queue.ts': `/** Jobs wait here until a worker takes them. */
export class JobQueue {
  enqueue(job: string): void {}
}
`,
};

const QUESTION = 'how are failed requests tried again later';
const PHRASINGS = ['retry with exponential backoff', 'resend a failing request'];

/** Phrasing requests get phrasings, rewrite requests an empty rewrite. */
function answer(request: FakeRequest) {
  const format = request.body?.format as { properties?: Record<string, unknown> } | undefined;
  return format?.properties?.phrasings ? { phrasings: PHRASINGS } : { terms: [], focus: '' };
}

const isPhrasing = (r: FakeRequest) => JSON.stringify(r.body?.format ?? {}).includes('"phrasings"');

let tree: IndexedTree;
let indexPath: string;
let fake: FakeLlmServer;

before(async () => {
  tree = await indexedTree(TREE, { vectors: false });
  indexPath = tree.indexPath;
  fake = await startFakeLlmServer({ models: ['qwen3:0.6b'] });
});

after(async () => {
  await fake.close();
  tree.remove();
});

async function engine(): Promise<SearchEngine> {
  const llm = createLlmClient({
    ...LLM_DEFAULTS,
    host: fake.url,
    model: 'qwen3:0.6b',
    timeoutMs: 3000,
    retries: 0,
    breakerThreshold: 100,
  });
  return openLocalEngine({ indexPath, embedder: null, config: null, llm });
}

describe('phrasings from the model as query variants', () => {
  it('one chat call for every phrasing; the second time the cache answers', async () => {
    fake.setMode({ kind: 'good', answer });
    const e = await engine();
    try {
      const before = fake.generations().filter(isPhrasing).length;
      const res = await e.search({ query: QUESTION, variants: 3 });
      assert.equal(fake.generations().filter(isPhrasing).length - before, 1, 'one call');
      const list = res.plan!.variants.list;
      assert.deepEqual(
        list.map((v) => [v.kind, v.text]),
        [['words', QUESTION], ...PHRASINGS.map((p) => ['phrasing', p])],
      );
      assert.ok(list.every((v) => v.hits !== null));
      assert.equal(res.results[0]!.path, 'src/retry.ts');
      assert.equal(res.plan!.variants.phrasings!.cached, false);
      assert.deepEqual(res.degraded, []);

      const again = await e.search({
        query: ` How are  failed requests tried again later `,
        variants: 3,
      });
      assert.equal(fake.generations().filter(isPhrasing).length - before, 1, 'no second call');
      assert.equal(again.plan!.variants.phrasings!.cached, true);
      assert.deepEqual(again.plan!.variants.list.map((v) => v.text).slice(1), PHRASINGS);
    } finally {
      await e.close();
    }
  });

  it('without variants, or for identifiers, nothing is asked', async () => {
    fake.setMode({ kind: 'good', answer });
    const e = await engine();
    try {
      const before = fake.generations().filter(isPhrasing).length;
      await e.search({ query: QUESTION });
      await e.search({ query: 'retryWithBackoff', variants: 3 });
      assert.equal(fake.generations().filter(isPhrasing).length, before);
    } finally {
      await e.close();
    }
  });

  for (const [name, mode] of [
    ['HTTP 500', { kind: 'http', status: 500 }],
    ['invalid JSON', { kind: 'invalid-json' }],
    ['a schema violation', { kind: 'schema-violation' }],
    ['a 2 MB body', { kind: 'huge' }],
  ] as const) {
    it(`a model answering ${name} degrades the search, never fails it`, async () => {
      fake.setMode(mode);
      const e = await engine();
      try {
        const res = await e.search({
          query: `a failing request is retried (${name})`,
          variants: 3,
        });
        assert.ok(res.results.length > 0);
        assert.ok(
          res.degraded.some((d) => d.startsWith('phrasings:')),
          res.degraded.join('; '),
        );
        assert.notEqual(res.plan!.variants.phrasings!.fallback, null);
        assert.ok(res.plan!.variants.list.every((v) => v.kind !== 'phrasing'));
      } finally {
        await e.close();
      }
    });
  }

  it('a hanging model: the search answers within its deadline', async () => {
    fake.setMode({ kind: 'hang' });
    const e = await engine();
    try {
      const t0 = performance.now();
      const res = await e.search({
        query: 'a failing request is retried, hang',
        variants: 3,
        deadlineMs: 400,
      });
      assert.ok(performance.now() - t0 < 1000, 'within the deadline, and then some');
      assert.ok(
        res.degraded.some((d) => d.startsWith('phrasings:')),
        res.degraded.join('; '),
      );
    } finally {
      await e.close();
    }
  });
});

describe('LruCache', () => {
  it('evicts the least recently used; a read counts as a use', () => {
    const c = new LruCache<number>(2);
    c.set('a', 1);
    c.set('b', 2);
    assert.equal(c.get('a'), 1);
    c.set('c', 3);
    assert.equal(c.get('b'), undefined, 'b was the least recently used');
    assert.equal(c.get('a'), 1);
    assert.equal(c.get('c'), 3);
    assert.equal(c.size, 2);
    assert.throws(() => new LruCache(0), /positive integer/);
  });
});
