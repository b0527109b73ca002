import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CONTEXT_CACHE_FILE } from '@codesift/context';
import { LLM_DEFAULTS, type LlmConfig } from '@codesift/llm';
import { type FakeLlmServer, type FakeMode, startFakeLlmServer } from '@codesift/llm/testing';
import { openSqliteIndex } from '@codesift/stores';
import { indexRepository } from './local-runner.js';

/** Indexing in LLM-context mode against the fake Ollama on loopback. */
const MODEL = 'qwen3:0.6b';
const FILES: Record<string, string> = {
  'src/stack.ts': `/** Last in, first out. */
export class Stack<T> {
  private items: T[] = [];

  /** Puts a value on top. */
  push(value: T): void {
    this.items.push(value);
  }

  pop(): T | undefined {
    return this.items.pop();
  }
}
`,
  'src/parse.py': `def parse_flags(argv):
    """Parses command line flags."""
    return [a for a in argv if a.startswith("--")]


def main():
    print(parse_flags(["--x"]))
`,
  'README.md': '# Demo\n\nA demo tree.\n',
};

let fake: FakeLlmServer;
let root: string;
before(async () => {
  fake = await startFakeLlmServer({ models: [MODEL] });
});
after(() => fake.close());

function freshTree(): string {
  root = mkdtempSync(path.join(tmpdir(), 'codesift-llmctx-'));
  for (const [rel, content] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
  return root;
}

function llm(over: Partial<LlmConfig> = {}): LlmConfig {
  return { ...LLM_DEFAULTS, host: fake.url, model: MODEL, timeoutMs: 20_000, ...over };
}

/** One prose sentence for every chunk; its word "handles" is in no file of the tree. */
const SITUATE: FakeMode = {
  kind: 'good',
  answer: { context: 'Part of the demo tree that handles stacks and flags for the tests.' },
};

function run(
  options: {
    rebuild?: boolean;
    dropContextCache?: boolean;
    llm?: LlmConfig;
    indexPath?: string;
  } = {},
) {
  return indexRepository({ root, vectors: false, llm: llm(), ...options });
}

test('LLM contexts go into the chunk context field; re-index with nothing changed makes zero calls; an edit re-asks only its chunks', async () => {
  freshTree();
  try {
    fake.setMode(SITUATE);
    let before = fake.generations().length;
    const first = await run();
    const calls = fake.generations().length - before;
    assert.ok(first.chunks >= 3);
    assert.equal(calls, first.chunks);
    assert.deepEqual(first.context, {
      mode: 'llm',
      model: MODEL,
      modelAnswered: true,
      calls,
      cacheHits: 0,
      sources: { llm: first.chunks, pattern: 0 },
      fallbacks: {},
    });
    const index = openSqliteIndex(first.indexPath);
    try {
      // "handles" is in no file: only the model's context sentence carries it.
      const hits = await index.keyword.search({ terms: [{ term: 'handles' }], limit: 10 });
      assert.equal(hits.length, first.chunks, 'the LLM context is indexed for BM25');
      // Each chunk records who wrote its context.
      const stored = await index.chunks.get(hits.map((h) => h.id));
      assert.deepEqual(
        new Set(stored.map((c) => `${c.contextSource}/${c.contextFallback}`)),
        new Set(['llm/undefined']),
      );
    } finally {
      index.close();
    }

    before = fake.generations().length;
    const second = await run();
    assert.equal(fake.generations().length - before, 0, 'nothing changed: zero model calls');
    assert.deepEqual(second.context, {
      mode: 'llm',
      model: MODEL,
      modelAnswered: null,
      calls: 0,
      cacheHits: 0,
      sources: { llm: 0, pattern: 0 },
      fallbacks: {},
    });

    before = fake.generations().length;
    const rebuilt = await run({ rebuild: true });
    assert.equal(fake.generations().length - before, 0, '--rebuild reuses the cache');
    assert.equal(rebuilt.context?.cacheHits, rebuilt.chunks);

    // One-line edit inside parse_flags: only that chunk's content changed.
    const file = path.join(root, 'src/parse.py');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"--"', '"-"'));
    before = fake.generations().length;
    const edited = await run();
    const asked = fake.generations().slice(before);
    assert.equal(asked.length, 1, 'only the edited chunk is asked again');
    assert.match(JSON.stringify(asked[0]!.body), /parse_flags/);
    assert.equal(edited.context?.cacheHits, edited.chunks - 1);

    // Moving the index directory keeps the cache.
    const moved = path.join(root, '..', `${path.basename(root)}-moved-index`);
    renameSync(path.join(root, '.codesift'), moved);
    before = fake.generations().length;
    await run({ rebuild: true, indexPath: path.join(moved, 'index.db') });
    assert.equal(fake.generations().length - before, 0, 'a moved index keeps its cache');
    rmSync(moved, { recursive: true, force: true });

    // Asked to drop it, a rebuild asks every chunk again.
    await run();
    before = fake.generations().length;
    const dropped = await run({ rebuild: true, dropContextCache: true });
    assert.equal(fake.generations().length - before, dropped.chunks, 'a dropped cache asks again');
    assert.equal(dropped.context?.cacheHits, 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** Each fault the fake can script, and the fallback reason its chunks are counted under. */
const FAULTS: [string, FakeMode, string][] = [
  ['a model that hangs', { kind: 'hang' }, 'timeout'],
  ['HTTP 500', { kind: 'http', status: 500 }, 'error'],
  ['content that is not JSON', { kind: 'invalid-json' }, 'garbage'],
  ['schema-violating JSON', { kind: 'schema-violation' }, 'garbage'],
  ['a 2 MB body', { kind: 'huge' }, 'garbage'],
  ['an empty context', { kind: 'good', answer: { context: '' } }, 'empty'],
];

for (const [name, mode, reason] of FAULTS) {
  test(`${name} never fails indexing: every chunk gets the pattern context, counted as ${reason}`, async () => {
    freshTree();
    try {
      fake.setMode(mode);
      const s = await run({
        llm: llm({ timeoutMs: mode.kind === 'hang' ? 150 : 5000, breakerThreshold: 1000 }),
      });
      assert.equal(s.filesFailed, 0);
      assert.equal(s.context?.sources.pattern, s.chunks);
      assert.deepEqual(s.context?.fallbacks, { [reason]: s.chunks });
      assert.equal(s.context?.sources.llm, 0);
      // An empty sentence is still an answer (the check rejects it afterwards).
      assert.equal(s.context?.modelAnswered, reason === 'empty');
      const index = openSqliteIndex(s.indexPath);
      try {
        // Every pattern context says "lines a-b of ..."; no file of the tree has the word.
        const hits = await index.keyword.search({ terms: [{ term: 'lines' }], limit: 10 });
        assert.equal(hits.length, s.chunks);
        const stored = await index.chunks.get(hits.map((h) => h.id));
        assert.deepEqual(
          new Set(stored.map((c) => `${c.contextSource}/${c.contextFallback}`)),
          new Set([`pattern/${reason}`]),
          mode.kind,
        );
      } finally {
        index.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}

test('a missing model trips the breaker: a few calls, then breaker-open for the rest', async () => {
  freshTree();
  try {
    fake.setMode(SITUATE);
    const before = fake.generations().length;
    const s = await run({ llm: llm({ model: 'absent:1b', breakerThreshold: 2, concurrency: 1 }) });
    assert.equal(fake.generations().length - before, 2);
    assert.equal(s.context?.modelAnswered, false);
    assert.deepEqual(s.context?.fallbacks, {
      'model-missing': 2,
      'breaker-open': s.chunks - 2,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('pattern mode (no model) reports every chunk as pattern and makes no cache file', async () => {
  freshTree();
  try {
    const before = fake.requests.length;
    const s = await indexRepository({ root, vectors: false });
    assert.equal(fake.requests.length, before);
    assert.deepEqual(s.context, {
      mode: 'pattern',
      model: null,
      modelAnswered: null,
      calls: 0,
      cacheHits: 0,
      sources: { llm: 0, pattern: s.chunks },
      fallbacks: {},
    });
    assert.throws(() => readFileSync(path.join(root, '.codesift', CONTEXT_CACHE_FILE)));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/**
 * The same index-level checks against a real Ollama when OLLAMA_HOST and
 * CODESIFT_LLM_MODEL are set:
 *   OLLAMA_HOST=http://127.0.0.1:11434 CODESIFT_LLM_MODEL=qwen3:0.6b node scripts/run-tests.mjs llm-context
 * A real server can be made to time out (a 1 ms limit) and to lack a model;
 * it cannot be scripted to answer 500, broken or off-schema JSON or a 2 MB
 * body, so those run against the fake only.
 */
const realHost = process.env.OLLAMA_HOST?.trim();
const realModel = process.env.CODESIFT_LLM_MODEL?.trim();
const noReal = !realHost
  ? 'OLLAMA_HOST is not set: no real Ollama to index against'
  : !realModel
    ? 'CODESIFT_LLM_MODEL is not set: no model to index with'
    : false;

function realLlm(over: Partial<LlmConfig> = {}): LlmConfig {
  return {
    ...LLM_DEFAULTS,
    host: realHost ?? '',
    model: realModel ?? '',
    timeoutMs: 120_000,
    ...over,
  };
}

test('real Ollama: contexts counted by source; a rebuild asks only for the chunks that fell back', {
  skip: noReal,
}, async () => {
  freshTree();
  try {
    const s = await run({ llm: realLlm() });
    assert.equal(s.filesFailed, 0);
    assert.equal(s.context?.modelAnswered, true);
    assert.equal((s.context?.sources.llm ?? 0) + (s.context?.sources.pattern ?? 0), s.chunks);
    const again = await run({ llm: realLlm(), rebuild: true });
    assert.equal(
      again.context?.calls,
      s.context?.sources.pattern,
      'only fallbacks are asked again',
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('real Ollama: a model that cannot answer in time never fails indexing', {
  skip: noReal,
}, async () => {
  freshTree();
  try {
    const s = await run({ llm: realLlm({ timeoutMs: 1, breakerThreshold: 1000 }) });
    assert.equal(s.filesFailed, 0);
    assert.deepEqual(s.context?.fallbacks, { timeout: s.chunks });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('real Ollama: a model that is not installed never fails indexing', {
  skip: noReal,
}, async () => {
  freshTree();
  try {
    const s = await run({
      llm: realLlm({ model: 'codesift-no-such-model:1b', breakerThreshold: 2, concurrency: 1 }),
    });
    assert.equal(s.filesFailed, 0);
    assert.deepEqual(s.context?.fallbacks, { 'model-missing': 2, 'breaker-open': s.chunks - 2 });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
