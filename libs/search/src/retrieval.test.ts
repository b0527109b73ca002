import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KeywordQuery, VectorQuery } from '@codesift/stores';
import { batchedQueryEmbedder } from './batched-embedder.js';
import { planSearch } from './engine.js';
import { compileFilter } from './filters.js';
import { retrieve } from './retrieval.js';
import { plannerConfigFrom } from './search-config.js';
import type { SearchIndex } from './search-index.js';
import { hashEmbedder } from './testing/fixtures.js';
import { retrieveVariants } from './variants-step.js';

/** Busy-waits: SQLite's keyword query holds the thread like this. */
function holdThread(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

const hit = {
  id: 'c1',
  path: 'src/retry.ts',
  startLine: 1,
  endLine: 9,
  symbol: null,
  kind: 'function',
  language: 'typescript',
  score: 1,
};

/** Sources whose keyword side blocks the thread and whose embedder logs when a text reaches it. */
function recordingSources(log: string[]) {
  const model = hashEmbedder('test:hash-16', 16);
  const embedder = batchedQueryEmbedder({
    get: async () => ({
      ...model,
      embed: async (texts: string[]) => {
        log.push(`embed ${texts.length}`);
        return model.embed(texts);
      },
    }),
    close: async () => {},
  });
  const index = {
    location: 'fake',
    keyword: {
      search: async (_q: KeywordQuery) => {
        log.push('keyword');
        holdThread(5);
        return [hit];
      },
    },
    vectors: {
      search: async (_q: VectorQuery) => {
        log.push('vector');
        return [];
      },
    },
  } as unknown as SearchIndex;
  return { index, embedder };
}

const plan = (query: string) => planSearch({ query }, plannerConfigFrom()).plan;

describe('retrieve', () => {
  it('sends the text to the embedder before the synchronous keyword side holds the thread', async () => {
    const log: string[] = [];
    const sources = recordingSources(log);
    const p = plan('where are retries scheduled after a failure');
    assert.equal(p.vector.run, true, 'a question runs the vector side');
    // Warm: the embedder's first get() resolves, as in a serving engine.
    await sources.embedder.get();
    await retrieve(p, compileFilter(undefined), sources, {});
    // (The fake model answers at once, so its vector search may come before the keyword side.)
    assert.equal(log[0], 'embed 1');
    assert.deepEqual([...log].sort(), ['embed 1', 'keyword', 'vector']);
  });

  it("sends every variant's text in one batch before any keyword side runs", async () => {
    const log: string[] = [];
    const sources = recordingSources(log);
    await sources.embedder.get();
    const plans = [plan('retry a failed request'), plan('schedule the next attempt later')];
    await Promise.all(plans.map((p) => retrieve(p, compileFilter(undefined), sources, {})));
    assert.equal(log[0], 'embed 2');
    assert.equal(log.filter((e) => e === 'keyword').length, 2);
  });

  it("sends the embedding view's text before the keyword-only views' keyword sides", async () => {
    const log: string[] = [];
    const sources = recordingSources(log);
    await sources.embedder.get();
    const embeds = plan('where are retries scheduled after a failure');
    const keywordOnly = plan('OllamaEmbedder');
    assert.equal(keywordOnly.vector.run, false);
    // The keyword-only view first, as retrieveVariants may order them.
    const limits = { afterEmbedRequest: true };
    await Promise.all(
      [keywordOnly, embeds].map((p) => retrieve(p, compileFilter(undefined), sources, limits)),
    );
    assert.equal(log[0], 'embed 1');
    assert.equal(log.filter((e) => e === 'keyword').length, 2);
  });

  it("retrieveVariants: a pasted report's views all wait for its embedding request", async () => {
    const log: string[] = [];
    const sources = recordingSources(log);
    await sources.embedder.get();
    const trace = Array.from(
      { length: 12 },
      (_, i) => `    at Handler${i} (src/module${i}.ts:${i + 10}:5)`,
    ).join('\n');
    const p = plan(
      `Bug report: after upgrading, search returns nothing.\nTypeError: Cannot read properties of undefined (reading "length")\n${trace}`,
    );
    const kinds = p.variants.list.map((v) => v.kind);
    assert.ok(p.variants.list.length > 1, `a report has several views: ${kinds}`);
    await retrieveVariants(p, compileFilter(undefined), sources, {});
    assert.equal(log[0], 'embed 1');
    assert.equal(log.filter((e) => e === 'keyword').length, p.variants.list.length);
  });

  it('does not wait for the vector side when the plan skips it', async () => {
    const log: string[] = [];
    const sources = recordingSources(log);
    const p = plan('OllamaEmbedder');
    assert.equal(p.vector.run, false, 'an identifier skips the vector side');
    await retrieve(p, compileFilter(undefined), sources, {});
    assert.deepEqual(log, ['keyword']);
  });
});
