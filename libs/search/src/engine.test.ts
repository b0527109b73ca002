import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CodesiftError, sha256Hex } from '@codesift/core';
import type { Embedder } from '@codesift/models';
import { indexRepository } from '@codesift/pipeline';
import { openSqliteIndex } from '@codesift/stores';
import { openLocalEngine } from './engine.js';
import { hashEmbedder as fixtureEmbedder } from './testing/fixtures.js';
import type { SearchEngine } from './types.js';
import { MAX_HITS_PER_FILE, MERGE_GAP_LINES } from './units.js';

/**
 * A deterministic embedder for tests: a bag of analyzer terms hashed into
 * 64 dimensions, L2-normalised. Texts sharing words point the same way, so
 * the vector side ranks like a (crude) lexical model, predictably.
 */
function hashEmbedder(name = 'test:hash-64', dimensions = 64): Embedder {
  return fixtureEmbedder(name, dimensions);
}

/** An embedder that never answers (a hung Ollama), to exercise the deadline. */
function hungEmbedder(): Embedder & { aborted: boolean } {
  const e = {
    ...hashEmbedder(),
    aborted: false,
    embed: (_texts: string[], opts?: { signal?: AbortSignal }) =>
      new Promise<Float32Array[]>((_, reject) => {
        opts?.signal?.addEventListener('abort', () => {
          e.aborted = true;
          reject(new Error('aborted'));
        });
      }),
  };
  return e;
}

const TREE: Record<string, string> = {
  'src/graph/graph.ts': `/** A directed graph of string nodes. */
export class Graph {
  private readonly nodes = new Set<string>();
  private readonly edges: [string, string][] = [];

  /** Adds a node if it is not there yet. */
  addNode(id: string): void {
    this.nodes.add(id);
  }

  /** Inserts an edge between two nodes, adding the nodes as needed. */
  addEdge(from: string, to: string): void {
    this.addNode(from);
    this.addNode(to);
    this.edges.push([from, to]);
  }

  /** Number of nodes. */
  size(): number {
    return this.nodes.size;
  }
}
`,
  'src/graph/graph.test.ts': `import { Graph } from './graph.js';

export function testAddEdgeTwice(): void {
  const g = new Graph();
  g.addEdge('a', 'b');
  g.addEdge('a', 'b');
  if (g.size() !== 2) throw new Error('addEdge added nodes twice');
}
`,
  'src/util/strings.ts': `/** Turns snake_case or kebab-case into camelCase. */
export function toCamelCase(text: string): string {
  return text.replace(/[-_]([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Escapes the five HTML special characters. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
`,
  'src/util/retry.ts': `/** Retries a failing async operation with exponential backoff. */
export async function retryWithBackoff<T>(op: () => Promise<T>, attempts = 5): Promise<T> {
  let delay = 100;
  for (let i = 0; ; i++) {
    try {
      return await op();
    } catch (err) {
      if (i + 1 >= attempts) throw err;
      await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
  }
}
`,
  'py/handlers/orders.py': `"""Order handlers."""


def parse_amount(text):
    """Parses an order amount like '12.50'."""
    return round(float(text.strip()), 2)


def total_orders(orders):
    """Sums the amounts of all orders."""
    return sum(o.amount for o in orders)
`,
  'docs/graph.md': `# Graphs

Use \`Graph\` to model dependencies between modules.

## Edges

Call addEdge to connect two modules; missing nodes are created.
`,
};

let dir: string;
let indexPath: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'codesift-search-'));
  const root = path.join(dir, 'repo');
  for (const [rel, text] of Object.entries(TREE)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  indexPath = path.join(dir, 'index.db');
  await indexRepository({ root, indexPath, vectors: true, embedder: hashEmbedder() });
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function withEngine<T>(
  fn: (e: SearchEngine) => Promise<T>,
  embedder: Embedder | null = hashEmbedder(),
): Promise<T> {
  const engine = await openLocalEngine({ indexPath, embedder });
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

const isCode = (code: string) => (e: unknown) => e instanceof CodesiftError && e.code === code;

describe('openLocalEngine', () => {
  it('fails with INDEX_NOT_FOUND and a hint when the index is missing', async () => {
    await assert.rejects(
      openLocalEngine({ indexPath: path.join(dir, 'nope', 'index.db') }),
      (e) => isCode('INDEX_NOT_FOUND')(e) && /codesift index/.test((e as CodesiftError).hint ?? ''),
    );
  });

  it('fails with INDEX_CORRUPT for a file that is not an index', async () => {
    const bad = path.join(dir, 'bad.db');
    writeFileSync(bad, 'not a database at all, just text'.repeat(10));
    await assert.rejects(openLocalEngine({ indexPath: bad }), isCode('INDEX_CORRUPT'));
  });

  it('refuses an embedder other than the one the index was built with', async () => {
    await assert.rejects(
      openLocalEngine({ indexPath, embedder: hashEmbedder('test:other', 64) }),
      isCode('INDEX_INCOMPATIBLE'),
    );
    await assert.rejects(
      openLocalEngine({ indexPath, embedder: hashEmbedder('test:hash-64', 32) }),
      isCode('INDEX_INCOMPATIBLE'),
    );
  });

  it('rejects an unknown fusion method or weight', async () => {
    await assert.rejects(
      openLocalEngine({ indexPath, fusion: 'max' as never }),
      isCode('INVALID_ARGUMENT'),
    );
    await assert.rejects(
      openLocalEngine({ indexPath, vectorWeight: 2 }),
      isCode('INVALID_ARGUMENT'),
    );
  });
});

describe('LocalEngine.search', () => {
  it('finds an exact identifier at its definition, rank 1, in every mode', async () => {
    await withEngine(async (e) => {
      for (const request of [
        { query: 'addEdge' },
        { query: 'addEdge', fusion: 'rrf' as const },
        { query: 'addEdge', keywordOnly: true },
      ]) {
        const res = await e.search({ ...request, explain: true });
        const top = res.results[0]!;
        // The small class is one chunk; the test that calls addEdge three times must not win.
        assert.equal(top.path, 'src/graph/graph.ts', JSON.stringify(request));
        assert.equal(top.symbol, 'Graph', JSON.stringify(request));
        assert.ok(top.explain!.boost! > 0);
        assert.ok(top.snippet.includes('addEdge(from: string, to: string)'), top.snippet);
        assert.ok(top.snippetStartLine >= top.startLine && top.snippetStartLine <= top.endLine);
      }
    });
  });

  it('answers a question in words from both sides', async () => {
    await withEngine(async (e) => {
      const res = await e.search({
        query: 'retry a failing operation with backoff',
        explain: true,
      });
      assert.equal(res.results[0]!.path, 'src/util/retry.ts');
      const ex = res.results[0]!.explain!;
      assert.equal(ex.keywordRank, 1);
      assert.equal(ex.vectorRank, 1);
      assert.equal(ex.fused, res.results[0]!.score);
      assert.deepEqual(res.degraded, []);
      assert.equal(res.fusion, 'linear');
      for (const stage of [
        'parse',
        'plan',
        'keyword',
        'embed',
        'vector',
        'fuse',
        'boosts',
        'hydrate',
        'total',
      ]) {
        assert.equal(typeof res.timings[stage], 'number', stage);
      }
      assert.ok(res.totalChunks > 5);
    });
  });

  it('orders results by fused score, scores in 0..1 for linear fusion', async () => {
    await withEngine(async (e) => {
      const res = await e.search({ query: 'graph nodes', limit: 20 });
      const scores = res.results.map((r) => r.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
      );
      assert.ok(scores.every((s) => s >= 0 && s <= 1));
      assert.ok(scores[0]! > 0.5);
    });
  });

  it('filters by exclude glob, include glob and language', async () => {
    await withEngine(async (e) => {
      const all = await e.search({ query: 'addEdge', limit: 50 });
      assert.ok(all.results.some((r) => r.path.endsWith('.test.ts')));
      const noTests = await e.search({
        query: 'addEdge',
        limit: 50,
        filter: { exclude: ['**/*.test.ts'] },
      });
      assert.ok(noTests.results.length > 0);
      assert.ok(noTests.results.every((r) => !r.path.endsWith('.test.ts')));
      const docs = await e.search({ query: 'addEdge', filter: { include: ['docs/**'] } });
      assert.ok(docs.results.length > 0);
      assert.ok(docs.results.every((r) => r.path.startsWith('docs/')));
      const py = await e.search({ query: 'orders amount', filter: { languages: ['python'] } });
      assert.ok(py.results.length > 0);
      assert.ok(py.results.every((r) => r.language === 'python'));
      const none = await e.search({ query: 'addEdge', filter: { include: ['nowhere/**'] } });
      assert.deepEqual(none.results, []);
      // An alias finds what its id finds; an unknown language is refused, not "no results".
      const alias = await e.search({ query: 'orders amount', filter: { languages: ['py'] } });
      assert.deepEqual(alias.results, py.results);
      const typed = await e.search({ query: 'lang:python3 orders amount' });
      assert.deepEqual(
        typed.results.map((r) => r.chunkId),
        py.results.map((r) => r.chunkId),
      );
      await assert.rejects(e.search({ query: 'lang:klingon orders amount' }), {
        code: 'INVALID_ARGUMENT',
        message: /unknown language 'klingon'; known languages: .*python/,
      });
    });
  });

  it('collapses to one result per file', async () => {
    await withEngine(async (e) => {
      const chunks = await e.search({ query: 'graph node edge', limit: 50 });
      const files = await e.search({ query: 'graph node edge', limit: 50, collapseFiles: true });
      const paths = files.results.map((r) => r.path);
      assert.equal(new Set(paths).size, paths.length);
      assert.ok(chunks.results.length >= files.results.length);
      assert.deepEqual(new Set(paths), new Set(chunks.results.map((r) => r.path)));
      assert.equal(files.results[0]!.chunkId, chunks.results[0]!.chunkId);
    });
  });

  it('returns the chunk list as units: a few per file, none touching another of its file', async () => {
    await withEngine(async (e) => {
      const { results } = await e.search({ query: 'graph node edge', limit: 50 });
      const byPath = new Map<string, { startLine: number; endLine: number }[]>();
      for (const r of results) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
      for (const [p, hits] of byPath) {
        assert.ok(hits.length <= MAX_HITS_PER_FILE, `${p}: ${hits.length} hits`);
        const sorted = [...hits].sort((a, b) => a.startLine - b.startLine);
        for (let i = 1; i < sorted.length; i++) {
          assert.ok(sorted[i]!.startLine > sorted[i - 1]!.endLine + MERGE_GAP_LINES + 1, p);
        }
      }
    });
  });

  it('respects the limit', async () => {
    await withEngine(async (e) => {
      assert.equal((await e.search({ query: 'graph', limit: 2 })).results.length, 2);
      await assert.rejects(e.search({ query: 'graph', limit: 0 }), isCode('INVALID_ARGUMENT'));
    });
  });

  it('drops a vector side that misses the deadline and answers from keywords', async () => {
    const hung = hungEmbedder();
    await withEngine(async (e) => {
      const t0 = performance.now();
      // Not identifiers only, so the plan runs the vector side.
      const res = await e.search({ query: 'addEdge of the graph', deadlineMs: 150 });
      const took = performance.now() - t0;
      assert.ok(took < 1000, `took ${took} ms`);
      assert.deepEqual(res.degraded, ['vector: timeout']);
      assert.equal(res.results[0]!.path, 'src/graph/graph.ts');
      assert.equal(hung.aborted, true);
    }, hung);
  });

  it('drops a vector side that fails', async () => {
    const broken: Embedder = {
      ...hashEmbedder(),
      embed: async () => {
        throw new Error('connection refused');
      },
    };
    await withEngine(async (e) => {
      const res = await e.search({ query: 'escape html' });
      assert.deepEqual(res.degraded, ['vector: connection refused']);
      assert.equal(res.results[0]!.symbol, 'escapeHtml');
    }, broken);
  });

  it('searches keywords only with embedder null', async () => {
    await withEngine(async (e) => {
      const res = await e.search({ query: 'escape html', explain: true });
      assert.deepEqual(res.degraded, []);
      assert.equal(res.timings.embed, undefined);
      assert.equal(res.plan!.vector.run, false);
      // The keyword side alone finds the function, and no result has a vector part.
      assert.equal(res.results[0]!.symbol, 'escapeHtml');
      for (const r of res.results) {
        assert.equal(r.explain!.vector, null, r.path);
        assert.equal(r.explain!.vectorRank, null, r.path);
      }
    }, null);
  });

  it('rejects an empty or blank query', async () => {
    await withEngine(async (e) => {
      await assert.rejects(e.search({ query: '' }), isCode('INVALID_ARGUMENT'));
      await assert.rejects(e.search({ query: ' \n\t ' }), isCode('INVALID_ARGUMENT'));
    });
  });

  it('returns no results (not an error) when nothing matches', async () => {
    await withEngine(async (e) => {
      const res = await e.search({ query: 'zqxjkvw' });
      assert.deepEqual(res.results, []);
    }, null);
  });

  it('handles a 20 KB pasted query quickly', async () => {
    const text =
      `${'TypeError: cannot read addEdge of undefined\n    at Graph.addEdge (src/graph/graph.ts:12:5)\n'.repeat(150)}${'lorem ipsum dolor sit amet '.repeat(300)}`.slice(
        0,
        20 * 1024,
      );
    assert.equal(text.length, 20 * 1024);
    await withEngine(async (e) => {
      const t0 = performance.now();
      const res = await e.search({ query: text });
      assert.ok(performance.now() - t0 < 1000);
      assert.equal(res.results[0]!.path, 'src/graph/graph.ts');
      assert.equal(res.query, text);
    });
  });

  it('rejects when the caller cancels', async () => {
    await withEngine(async (e) => {
      const controller = new AbortController();
      controller.abort(new Error('client went away'));
      await assert.rejects(e.search({ query: 'graph', signal: controller.signal }), /went away/);
    });
  });
});

describe('LocalEngine other methods', () => {
  it('looks up symbols and lists the vocabulary', async () => {
    await withEngine(async (e) => {
      const [sym] = await e.lookupSymbol('addEdge');
      assert.equal(sym!.qualifiedName, 'Graph.addEdge');
      assert.equal(sym!.path, 'src/graph/graph.ts');
      const vocab = await e.vocabulary({ prefix: 'add' });
      assert.deepEqual(vocab.map((v) => v.name).sort(), ['addEdge', 'addNode']);
    });
  });

  it('reports status from the index metadata and statistics', async () => {
    await withEngine(async (e) => {
      const s = await e.status();
      assert.equal(s.root, path.join(dir, 'repo'));
      assert.equal(s.indexPath, indexPath);
      assert.equal(s.files, Object.keys(TREE).length);
      assert.ok(s.chunks > 0 && s.vectors === s.chunks && s.symbols > 0);
      assert.equal(s.embedder, 'test:hash-64');
      assert.equal(s.dimensions, 64);
      assert.ok(s.bytes > 0 && s.updatedAt > 0);
    });
  });

  it('reads snippets from disk, clamping the range', async () => {
    await withEngine(async (e) => {
      const s = await e.getSnippet('src/graph/graph.ts', 12, 13);
      assert.deepEqual(s, {
        path: 'src/graph/graph.ts',
        startLine: 12,
        endLine: 13,
        language: 'typescript',
        text: '  addEdge(from: string, to: string): void {\n    this.addNode(from);',
      });
      const clamped = await e.getSnippet('src/graph/graph.ts', -5, 10_000);
      assert.equal(clamped.startLine, 1);
      assert.equal(clamped.endLine, 22);
      assert.ok(clamped.text.startsWith('/** A directed graph'));
      const reversed = await e.getSnippet('src/graph/graph.ts', 5, 2);
      assert.equal(reversed.startLine, 5);
      assert.equal(reversed.endLine, 5);
    });
  });

  it('refuses paths outside the root and explains missing files', async () => {
    writeFileSync(path.join(dir, 'secret.txt'), 'outside');
    symlinkSync(path.join(dir, 'secret.txt'), path.join(dir, 'repo', 'link.txt'));
    await withEngine(async (e) => {
      await assert.rejects(e.getSnippet('../secret.txt', 1, 1), isCode('PATH_OUTSIDE_ROOT'));
      await assert.rejects(e.getSnippet('/etc/passwd', 1, 1), isCode('PATH_OUTSIDE_ROOT'));
      // Files the indexer never accepted stay unreadable even inside the root.
      const notIndexed = (err: unknown) =>
        isCode('INVALID_ARGUMENT')(err) && /is not an indexed file/.test((err as Error).message);
      await assert.rejects(e.getSnippet('link.txt', 1, 1), notIndexed);
      await assert.rejects(e.getSnippet('src/gone.ts', 1, 2), notIndexed);
      writeFileSync(path.join(dir, 'repo', '.env'), 'TOKEN=secret\n');
      await assert.rejects(e.getSnippet('.env', 1, 1), notIndexed);
      await assert.rejects(e.getSnippet('src/graph/../../.env', 1, 1), notIndexed);
    });
  });

  it('reads a snippet of an index of many repositories from the directory of its repository', async () => {
    const apiRoot = path.join(dir, 'checkouts', 'api');
    mkdirSync(path.join(apiRoot, 'src'), { recursive: true });
    writeFileSync(path.join(apiRoot, 'src', 'a.ts'), 'one\ntwo\nthree\n');
    writeFileSync(path.join(dir, 'checkouts', 'outside.ts'), 'not in a repository\n');
    const reposIndex = path.join(dir, 'repos.db');
    const ix = openSqliteIndex(reposIndex, { create: true });
    ix.setRoot(apiRoot, 'api');
    const record = {
      // get_snippet serves only the bytes the index holds.
      hash: sha256Hex('one\ntwo\nthree\n'),
      size: 14,
      mtimeMs: 1,
      language: 'typescript',
      chunkCount: 0,
      symbolCount: 0,
      indexedAt: 1,
    };
    ix.manifest.put([
      { ...record, path: 'api/src/a.ts' },
      { ...record, path: 'api/../outside.ts' },
    ]);
    ix.close();
    const e = await openLocalEngine({ indexPath: reposIndex, embedder: null });
    try {
      const s = await e.getSnippet('api/src/a.ts', 2, 3);
      assert.equal(s.path, 'api/src/a.ts');
      assert.equal(s.text, 'two\nthree');
      const noRepository = (err: unknown) =>
        isCode('INVALID_ARGUMENT')(err) &&
        /in none of the index's repositories/.test((err as Error).message);
      await assert.rejects(e.getSnippet('src/a.ts', 1, 1), noRepository);
      await assert.rejects(e.getSnippet('web/src/a.ts', 1, 1), noRepository);
      // Normalized before the split: it names no repository, so nothing outside one is read.
      await assert.rejects(e.getSnippet('api/../outside.ts', 1, 1), noRepository);
    } finally {
      await e.close();
    }
  });

  it('refuses calls after close', async () => {
    const e = await openLocalEngine({ indexPath, embedder: null });
    await e.close();
    await e.close();
    await assert.rejects(e.search({ query: 'graph' }), isCode('INVALID_ARGUMENT'));
  });
});

describe('LocalEngine with the built-in model', () => {
  it('recreates the index’s embedder and searches both sides', async () => {
    const root = path.join(dir, 'builtin-repo');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    writeFileSync(path.join(root, 'src', 'graph.ts'), TREE['src/graph/graph.ts']!);
    writeFileSync(path.join(root, 'src', 'retry.ts'), TREE['src/util/retry.ts']!);
    const builtinIndex = path.join(dir, 'builtin.db');
    const { createBuiltinEmbedder } = await import('@codesift/models');
    const embedder = await createBuiltinEmbedder({ threads: 1 });
    try {
      await indexRepository({ root, indexPath: builtinIndex, vectors: true, embedder });
    } finally {
      await embedder.close();
    }
    const engine = await openLocalEngine({ indexPath: builtinIndex });
    try {
      const res = await engine.search({
        query: 'try the operation again after waiting',
        explain: true,
      });
      assert.deepEqual(res.degraded, []);
      assert.ok(res.results.some((r) => r.explain!.vector !== null));
      assert.ok(res.timings.embed! > 0);
    } finally {
      await engine.close();
    }
  });
});

describe('includePlan', () => {
  it('leaves the plan out only when asked to, with the same results', async () => {
    await withEngine(async (e) => {
      const full = await e.search({ query: 'addEdge graph' });
      const slim = await e.search({ query: 'addEdge graph', includePlan: false });
      assert.ok(full.results.length > 0);
      assert.ok(full.plan, 'the plan is there by default');
      assert.equal(slim.plan, undefined);
      assert.deepEqual(
        slim.results.map((r) => [r.path, r.score]),
        full.results.map((r) => [r.path, r.score]),
      );
    });
  });
});
