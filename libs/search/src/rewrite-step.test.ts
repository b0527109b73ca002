/**
 * The LLM rewrite step in the engine, over a real SQLite index of a small
 * tree and the fake Ollama server on loopback (@codesift/llm/testing).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLlmClient, LLM_DEFAULTS, type LlmConfig } from '@codesift/llm';
import { type FakeLlmServer, promptText, startFakeLlmServer } from '@codesift/llm/testing';
import { openSqliteIndex } from '@codesift/stores';
import { openEngine, openLocalEngine } from './engine.js';
import { REWRITE_SCHEMA, REWRITE_TERM_WEIGHT } from './rewrite-step.js';
import { localSearchIndex } from './search-index.js';
import { type IndexedTree, indexedTree } from './testing/indexed-tree.js';
import type { SearchRequest, SearchResponse } from './types.js';

const TREE: Record<string, string> = {
  'src/graph.ts': `/** Nodes and the links between them. */
export class GraphStore {
  private readonly adjacency = new Map<string, string[]>();
  /** Links one node to another. */
  addEdge(from: string, to: string): void {
    const list = this.adjacency.get(from) ?? [];
    list.push(to);
    this.adjacency.set(from, list);
  }
  removeNode(id: string): void {
    this.adjacency.delete(id);
  }
}
`,
  'src/flags.ts': `/** Reads command-line switches. */
export function parseFlags(argv: string[]): Record<string, boolean> {
  return Object.fromEntries(argv.map((a) => [a.replace(/^--/, ''), true]));
}
`,
  'src/graph.test.ts': `import { GraphStore } from './graph.js';
test('a link is stored', () => { new GraphStore().addEdge('a', 'b'); });
`,
};

const QUESTION = 'how does a new edge get into the graph store';

let tree: IndexedTree;
let indexPath: string;
let fake: FakeLlmServer;

before(async () => {
  tree = await indexedTree('codesift-rewrite-', TREE);
  indexPath = tree.indexPath;
  fake = await startFakeLlmServer({ models: ['qwen3:0.6b'] });
});

after(async () => {
  await fake.close();
  tree.remove();
});

function client(over: Partial<LlmConfig> = {}) {
  return createLlmClient({
    ...LLM_DEFAULTS,
    host: fake.url,
    model: 'qwen3:0.6b',
    timeoutMs: 3000,
    retries: 0,
    breakerThreshold: 100,
    ...over,
  });
}

async function search(
  request: SearchRequest,
  llm: ReturnType<typeof client> | null = client(),
): Promise<SearchResponse> {
  const engine = await openLocalEngine({ indexPath, embedder: null, config: null, llm });
  try {
    return await engine.search({ explain: true, ...request });
  } finally {
    await engine.close();
  }
}

const paths = (r: SearchResponse) => r.results.map((x) => `${x.path}:${x.startLine}`);

describe('LLM rewrite step', () => {
  it('sends the question with a matching vocabulary slice and searches the kept terms below the user words', async () => {
    fake.setMode({ kind: 'vocabulary-echo' });
    const before = fake.generations().length;
    const res = await search({ query: QUESTION, rewrite: 'on' });
    const sent = fake.generations().slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]!.body?.format, REWRITE_SCHEMA);
    const prompt = promptText(sent[0]!);
    assert.match(prompt, /^addEdge \[method\] src\/graph\.ts$/m);
    assert.match(prompt, /^GraphStore \[class\] src\/graph\.ts$/m);
    assert.doesNotMatch(prompt, /parseFlags/, 'the slice holds only symbols matching the question');
    assert.ok(sent[0]!.bytes < 4000, `prompt request of ${sent[0]!.bytes} bytes`);
    const rw = res.plan!.llmRewrite;
    assert.deepEqual(
      [rw.decision, rw.model, rw.terms, rw.dropped, rw.fallback],
      ['run', 'qwen3:0.6b', ['GraphStore', 'addEdge'], [], null],
    );
    assert.ok(rw.vocabulary >= 2 && typeof rw.ms === 'number');
    const added = res.plan!.keyword.terms.filter((t) => t.source === 'rewrite');
    assert.ok(added.some((t) => t.term === 'addedge' && t.weight === REWRITE_TERM_WEIGHT));
    const own = res.plan!.keyword.terms.filter((t) => t.source === 'original');
    assert.ok(own.length > 0 && own.every((t) => t.weight > REWRITE_TERM_WEIGHT));
    assert.deepEqual(res.degraded, []);
    assert.equal(typeof res.timings.rewrite, 'number');
    assert.ok(res.plan!.reasons.some((r) => r.startsWith('llm rewrite: qwen3:0.6b added')));
  });

  it('the model focus applies only when the user gave none', async () => {
    fake.setMode({ kind: 'good', answer: { terms: ['addEdge'], focus: 'tests' } });
    const inferred = await search({ query: QUESTION });
    assert.equal(inferred.plan!.focus.focus, 'tests');
    assert.equal(inferred.plan!.llmRewrite.focus, 'tests');
    const asked = await search({ query: QUESTION, focus: 'implementation' });
    assert.equal(asked.plan!.focus.focus, 'implementation');
    assert.equal(asked.plan!.llmRewrite.focus, null);
  });

  it('without a model, or with off, nothing is sent and the answer is the plain one', async () => {
    fake.setMode({ kind: 'vocabulary-echo' });
    const before = fake.generations().length;
    const none = await search({ query: QUESTION }, null);
    const off = await search({ query: QUESTION, rewrite: 'off' });
    assert.equal(fake.generations().length, before);
    assert.equal(none.plan!.llmRewrite.decision, 'skip');
    assert.match(none.plan!.llmRewrite.reason, /no model/);
    assert.equal(none.timings.rewrite, undefined);
    assert.deepEqual(paths(none), paths(off));
    assert.deepEqual(none.plan!.keyword.terms, off.plan!.keyword.terms);
  });

  it('identifiers, qualified names and stack traces are never sent', async () => {
    const before = fake.generations().length;
    for (const query of ['GraphStore.addEdge', 'addEdge removeNode']) {
      const res = await search({ query, rewrite: 'on' });
      assert.equal(res.plan!.llmRewrite.decision, 'skip', query);
    }
    assert.equal(fake.generations().length, before);
  });

  const failures = [
    { name: 'a hang', mode: { kind: 'hang' } as const, failure: 'timeout' },
    { name: 'HTTP 500', mode: { kind: 'http', status: 500 } as const, failure: 'error' },
    { name: 'invalid JSON', mode: { kind: 'invalid-json' } as const, failure: 'garbage' },
    { name: 'a schema violation', mode: { kind: 'schema-violation' } as const, failure: 'garbage' },
    { name: 'a 2 MB body', mode: { kind: 'huge' } as const, failure: 'garbage' },
    {
      name: 'terms found nowhere',
      mode: { kind: 'good', answer: { terms: ['zzNowhereAtAll'], focus: '' } } as const,
      failure: 'no suggested term is in the index',
    },
  ];
  for (const f of failures) {
    it(`${f.name} degrades the search to the plain answer within the deadline`, async () => {
      const plain = await search({ query: QUESTION, rewrite: 'off' });
      fake.setMode(f.mode);
      const t = performance.now();
      // The model's budget is the deadline minus the retrieval reserve (30%); a hang uses all of it.
      const res = await search({ query: QUESTION, deadlineMs: 1500 });
      const ms = performance.now() - t;
      assert.ok(ms < 2500, `took ${Math.round(ms)} ms`);
      assert.equal(res.degraded.length, 1, JSON.stringify(res.degraded));
      assert.ok(res.degraded[0]!.startsWith(`rewrite: ${f.failure}`), res.degraded[0]);
      assert.ok(res.plan!.llmRewrite.fallback?.startsWith(f.failure));
      assert.deepEqual(paths(res), paths(plain));
      if (f.failure === 'no suggested term is in the index') {
        assert.deepEqual(res.plan!.llmRewrite.dropped, ['zzNowhereAtAll']);
      }
    });
  }

  it('a symbol store that fails (the cluster symbol service down) degrades, never fails, the search', async () => {
    fake.setMode({ kind: 'vocabulary-echo' });
    const plain = await search({ query: QUESTION, rewrite: 'off' });
    const local = localSearchIndex(openSqliteIndex(indexPath, { readonly: true }), indexPath);
    const down = () => Promise.reject(new Error('no symbols service answers'));
    const engine = await openEngine({
      index: { ...local, symbols: { ...local.symbols, related: down } },
      embedder: null,
      config: null,
      llm: client(),
    });
    try {
      const before = fake.generations().length;
      const res = await engine.search({ query: QUESTION, explain: true });
      assert.equal(fake.generations().length, before, 'no vocabulary, no model call');
      assert.deepEqual(res.degraded, ['rewrite: no vocabulary: no symbols service answers']);
      assert.deepEqual(paths(res), paths(plain));
    } finally {
      await engine.close();
    }
  });

  it('the circuit breaker stops further calls after repeated failures', async () => {
    fake.setMode({ kind: 'http', status: 500 });
    const llm = client({ breakerThreshold: 2, breakerCooldownMs: 60_000 });
    const engine = await openLocalEngine({ indexPath, embedder: null, config: null, llm });
    try {
      await engine.search({ query: QUESTION });
      await engine.search({ query: QUESTION });
      const before = fake.generations().length;
      const res = await engine.search({ query: QUESTION });
      assert.equal(fake.generations().length, before);
      assert.ok(res.degraded[0]?.startsWith('rewrite: breaker-open'), res.degraded[0]);
      assert.ok(res.results.length > 0);
    } finally {
      await engine.close();
    }
  });

  it('a skipped short query that finds nothing gets one rewrite attempt', async () => {
    fake.setMode({ kind: 'good', answer: { terms: ['addEdge'], focus: '' } });
    const before = fake.generations().length;
    const res = await search({ query: 'plumbing hookup' });
    assert.equal(fake.generations().length, before + 1);
    const rw = res.plan!.llmRewrite;
    assert.deepEqual([rw.decision, rw.retry, rw.terms], ['skip', true, ['addEdge']]);
    assert.ok(res.results.some((r) => r.path === 'src/graph.ts'));
    const off = await search({ query: 'plumbing hookup', rewrite: 'off' });
    assert.equal(off.results.length, 0);
  });
});
