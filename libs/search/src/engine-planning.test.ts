/**
 * The engine executing query plans, on a small index built for the seed
 * cases of the planning issue: exact codes against near-misses, a citation,
 * vocabulary the user does not share with the code, and focus.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { analyze } from '@codesift/analysis';
import type { Embedder } from '@codesift/models';
import { indexRepository } from '@codesift/pipeline';
import { openLocalEngine } from './engine.js';
import { noiseProbes } from './noise-floor.js';
import type { SearchEngine, SearchRequest, SearchResponse } from './types.js';

/** Bag-of-terms embedder (see engine.test.ts) that counts its calls. */
const NOISE_PROBE_TEXTS = new Set(noiseProbes());

function countingEmbedder(): Embedder & { calls: number; probeCalls: number; texts: string[] } {
  const dimensions = 64;
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dimensions);
    for (const t of analyze(text)) {
      let h = 2166136261;
      for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
      v[(h >>> 0) % dimensions]! += 1;
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    return v.map((x) => x / norm);
  };
  const e = {
    name: 'test:hash-64',
    dimensions,
    maxBatch: 64,
    calls: 0,
    probeCalls: 0,
    texts: [] as string[],
    embed: async (texts: string[]) => {
      // The noise probes measure the index once (noise-floor.ts), not the query: counted apart.
      if (texts.every((t) => NOISE_PROBE_TEXTS.has(t))) e.probeCalls++;
      else {
        e.calls++;
        e.texts.push(...texts);
      }
      return texts.map(embedOne);
    },
    close: async () => {},
  };
  return e;
}

const TREE: Record<string, string> = {
  'docs/regions/d40.md':
    '# Site map\n\nThe pump station sits in region D40, next to the north intake.\n',
  'docs/regions/d41.md':
    '# Site map, south\n\nThe pump station of region D41 sits next to the south intake. Region D41 floods.\n',
  'docs/regions/area-d.md':
    '# Area D\n\nArea D is the region around the pump station; region D hosts the intake.\n',
  'docs/regions/d401.md': '# Form D401\n\nForm D401 lists the pumps of the station region.\n',
  'docs/rules/cfr.md':
    '# Machinery rules\n\nUnder 30 CFR 75.1725 mobile machinery shall be maintained in safe operating condition.\n',
  'docs/rules/other.md':
    '# Other rules\n\n30 CFR 75.1700 covers oil wells; section 1725 of the state code covers machinery.\n',
  'src/engine.ts': `/** Runs queries against the in-memory index. */
export class Engine {
  private readonly docs: string[] = [];

  /** Returns the documents that contain the query. */
  search(query: string): string[] {
    return this.docs.filter((d) => d.includes(query));
  }
}
`,
  'src/format.ts': `/** Formatting helpers: each function returns a string. */
export function formatDate(d: Date): string {
  return d.toISOString();
}

export function formatList(items: string[]): string {
  return items.join(', ');
}
`,
  'src/highlight.ts': `/** Wraps each match of the needle in a line in markers, for the search box. */
export function highlight(line: string, needle: string): string {
  return line.replaceAll(needle, '**' + needle + '**');
}
`,
  'src/cache/lru.ts': `/** A least-recently-used cache with a fixed capacity. */
export class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}

  /** Returns the cached value and marks it as recently used. */
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  /** Stores a value, evicting the least recently used entry when full. */
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }
}
`,
  'src/cache/lru.test.ts': `import { LruCache } from './lru.js';

/** The cache evicts the least recently used entry when it is full. */
export function testEviction(): void {
  const cache = new LruCache<number>(2);
  cache.set('a', 1);
  cache.set('b', 2);
  cache.get('a');
  cache.set('c', 3);
  if (cache.get('b') !== undefined) throw new Error('b should be evicted from the cache');
}
`,
};

let dir: string;
let root: string;
let indexPath: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'codesift-planning-'));
  root = path.join(dir, 'repo');
  for (const [rel, text] of Object.entries(TREE)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  indexPath = path.join(dir, 'index.db');
  await indexRepository({ root, indexPath, vectors: true, embedder: countingEmbedder() });
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function search(
  request: SearchRequest,
  embedder = countingEmbedder(),
): Promise<SearchResponse> {
  const engine: SearchEngine = await openLocalEngine({ indexPath, embedder, config: null });
  try {
    return await engine.search({ explain: true, ...request });
  } finally {
    await engine.close();
  }
}

const paths = (res: SearchResponse) => res.results.map((r) => r.path);

describe('query planning, executed', () => {
  it('"D40" ranks the D40 document above D41, Area D and D401, without embedding', async () => {
    const embedder = countingEmbedder();
    const res = await search({ query: 'D40' }, embedder);
    assert.equal(res.results[0]!.path, 'docs/regions/d40.md');
    assert.equal(res.plan!.vector.run, false);
    assert.equal(embedder.calls, 0, 'identifier-only: the embedder is never called');
    assert.equal(res.timings.embed, undefined);
    assert.ok(
      res.plan!.reasons.some((r) => /vector: skipped, the query is identifiers only/.test(r)),
    );
    // D401 does not hold the anchor D40 (word boundary), so it gets no boost.
    const d401 = res.results.find((r) => r.path === 'docs/regions/d401.md');
    assert.equal(d401?.explain?.anchorBoost, undefined);
    assert.equal(res.results[0]!.explain!.anchorBoost, 0.5);
  });

  it('"Tell me about D40" still ranks D40 first, and the vector side runs', async () => {
    for (const fusion of ['linear', 'rrf', 'adaptive'] as const) {
      const embedder = countingEmbedder();
      const res = await search({ query: 'Tell me about D40', fusion }, embedder);
      assert.equal(res.results[0]!.path, 'docs/regions/d40.md', fusion);
      assert.equal(embedder.calls, 1, fusion);
      assert.deepEqual(embedder.texts, ['Tell me about D40']);
      const rank = (p: string) => paths(res).indexOf(p);
      for (const near of ['docs/regions/d41.md', 'docs/regions/area-d.md']) {
        assert.ok(rank(near) === -1 || rank(near) > 0, `${fusion}: ${near}`);
      }
      assert.ok(res.results[0]!.explain!.vector !== null, 'the vector side scored it');
    }
  });

  it('without anchors the near-misses come close; the boost is what separates them', async () => {
    // The regions are prose docs, all scaled alike by doc demotion; this measures anchors alone.
    const on = await search({ query: 'Tell me about D40', docDemotion: false });
    const off = await search({ query: 'Tell me about D40', anchors: false, docDemotion: false });
    const gap = (res: SearchResponse) => res.results[0]!.score - res.results[1]!.score;
    assert.equal(off.plan!.anchors.enabled, false);
    assert.ok(gap(on) > gap(off) + 0.4, `${gap(on)} vs ${gap(off)}`);
  });

  it('"30 CFR 75.1725" finds the cited rule first', async () => {
    const res = await search({ query: '30 CFR 75.1725' });
    assert.equal(res.results[0]!.path, 'docs/rules/cfr.md');
    assert.deepEqual(
      res.plan!.anchors.list.map((a) => [a.text, a.kind]),
      [['30 CFR 75.1725', 'code']],
    );
    const other = res.results.find((r) => r.path === 'docs/rules/other.md');
    assert.ok(other && other.explain!.anchorBoost === undefined);
  });

  it('"Search function": expansion reaches class Engine { search() }, which never says "function"', async () => {
    assert.ok(!TREE['src/engine.ts']!.includes('function'));
    const on = await search({ query: 'Search function', keywordOnly: true });
    const off = await search({ query: 'Search function', keywordOnly: true, expansion: false });
    assert.equal(on.results[0]!.path, 'src/engine.ts');
    const keywordScore = (res: SearchResponse) =>
      res.results.find((r) => r.path === 'src/engine.ts')!.explain!.keyword!;
    // `engine` and `query` (synonyms of "search") add to what `search` alone scored.
    assert.ok(
      keywordScore(on) > keywordScore(off) * 1.5,
      `${keywordScore(on)} vs ${keywordScore(off)}`,
    );
    const engine = on.plan!.keyword.terms.find((t) => t.term === 'engine')!;
    assert.equal(engine.source, 'synonym');
    assert.ok(engine.weight < 1);
    // Keyword side only: expansion never reaches the vector side, whose text stays the user's.
    const hybrid = await search({ query: 'Search function' });
    assert.equal(hybrid.plan!.vector.text, 'Search function');
  });

  it('a how-question about tests ranks the test first; one about the code, the code', async () => {
    const tests = await search({ query: 'how is the LRU cache eviction tested' });
    assert.equal(tests.plan!.focus.focus, 'tests');
    assert.equal(tests.results[0]!.path, 'src/cache/lru.test.ts');
    const code = await search({ query: 'how does the LRU cache evict entries' });
    assert.equal(code.plan!.focus.focus, 'implementation');
    assert.equal(code.results[0]!.path, 'src/cache/lru.ts');
    const test = code.results.find((r) => r.path === 'src/cache/lru.test.ts');
    assert.equal(test?.explain?.focusMultiplier, 0.5);
    // An explicit focus overrides the inference; focusScoring false switches it off.
    const forced = await search({ query: 'how does the LRU cache evict entries', focus: 'tests' });
    assert.equal(forced.plan!.focus.source, 'request');
    assert.equal(forced.results[0]!.path, 'src/cache/lru.test.ts');
    const flat = await search({
      query: 'how is the LRU cache eviction tested',
      focusScoring: false,
    });
    // Both the test and the code are found, and neither is multiplied.
    const flatPaths = flat.results.map((r) => r.path);
    assert.ok(flatPaths.includes('src/cache/lru.test.ts'), `got: ${flatPaths.join(', ')}`);
    assert.ok(flatPaths.includes('src/cache/lru.ts'), `got: ${flatPaths.join(', ')}`);
    for (const r of flat.results) assert.equal(r.explain!.focusMultiplier, 1, r.path);
  });

  it('fusing by vector contrast measures the noise once the vector side answered, and only then', async () => {
    const query = 'how does the LRU cache evict entries';
    for (const [request, probes] of [
      [{ query, vectorContrast: true }, 1],
      [{ query }, 0],
      [{ query, vectorContrast: true, keywordOnly: true }, 0],
    ] as const) {
      const embedder = countingEmbedder();
      const res = await search(request, embedder);
      assert.equal(embedder.probeCalls, probes, JSON.stringify(request));
      assert.equal(res.plan!.fusion.contrast, probes === 1);
    }
  });

  it('an identifier nobody wrote falls back to the vector side', async () => {
    const embedder = countingEmbedder();
    const res = await search({ query: 'NoSuchIdentifierAnywhere' }, embedder);
    assert.equal(res.plan!.vector.run, false);
    // The query, then (no own term of it is indexed) the noise-floor probes in one batch.
    assert.equal(embedder.calls, 1);
    assert.equal(embedder.probeCalls, 1);
    assert.ok(res.plan!.reasons.some((r) => /found nothing, so it ran after all/.test(r)));
  });

  it('returns the plan and per-stage timings; explain has every score part', async () => {
    const res = await search({ query: 'how does the LRU cache evict entries lang:typescript' });
    for (const stage of [
      'parse',
      'plan',
      'keyword',
      'embed',
      'vector',
      'fuse',
      'boosts',
      'hydrate',
    ]) {
      assert.equal(typeof res.timings[stage], 'number', stage);
    }
    assert.deepEqual(res.plan!.filter, { languages: ['typescript'] });
    assert.ok(res.results.every((r) => r.language === 'typescript'));
    const ex = res.results[0]!.explain!;
    assert.equal(typeof ex.base, 'number');
    assert.equal(ex.focusMultiplier, 1);
    assert.equal(ex.fused, res.results[0]!.score);
    assert.deepEqual(JSON.parse(JSON.stringify(res.plan)), res.plan);
  });

  it('reads synonyms and defaults from the repository config file', async () => {
    mkdirSync(path.join(root, '.codesift'), { recursive: true });
    const file = path.join(root, '.codesift', 'config.json');
    writeFileSync(
      file,
      JSON.stringify({ search: { synonyms: { storage: ['lru'] }, fusion: 'adaptive' } }),
    );
    try {
      const engine = await openLocalEngine({ indexPath, embedder: countingEmbedder() });
      try {
        const res = await engine.search({ query: 'storage' });
        assert.equal(res.plan!.fusion.method, 'adaptive');
        assert.ok(res.plan!.keyword.terms.some((t) => t.term === 'lru' && t.source === 'synonym'));
        // A request's own table goes over it.
        const req = await engine.search({ query: 'storage', synonyms: { storage: ['intake'] } });
        assert.ok(req.plan!.keyword.terms.some((t) => t.term === 'intake'));
      } finally {
        await engine.close();
      }
      writeFileSync(file, JSON.stringify({ search: { fusion: 'max' } }));
      await assert.rejects(openLocalEngine({ indexPath, embedder: null }), /search.fusion/);
    } finally {
      rmSync(path.join(root, '.codesift'), { recursive: true, force: true });
    }
  });
});
