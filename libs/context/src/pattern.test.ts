import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Chunk } from '@codesift/core';
import { createPatternContextualizer, embeddingText } from './contextualizer.js';
import { identifierWords, pathWords, patternContext } from './pattern.js';

function chunk(over: Partial<Chunk>): Chunk {
  return {
    id: 'x',
    path: 'internal/search/engine.go',
    language: 'go',
    startLine: 10,
    endLine: 42,
    symbol: 'Engine.Search',
    kind: 'method',
    content: 'func (e *Engine) Search(ctx context.Context, q string) ([]Result, error) {}',
    ...over,
  };
}

test('identifierWords splits camel, Pascal, acronyms, snake and kebab case', () => {
  assert.equal(identifierWords('addEdgeToGraph'), 'add edge to graph');
  assert.equal(identifierWords('OllamaEmbedder'), 'ollama embedder');
  assert.equal(identifierWords('parseHTTPResponse'), 'parse http response');
  assert.equal(identifierWords('max_file_bytes'), 'max file bytes');
  assert.equal(identifierWords('dead-letter'), 'dead letter');
});

test('pathWords spells a path as words and drops src/ and test suffixes', () => {
  assert.equal(pathWords('src/graph/edgeStore.ts'), 'graph edge store');
  assert.equal(pathWords('lib/foo/bar.test.ts'), 'foo bar');
  assert.equal(pathWords('internal/mockSearcher/mock_searcher.go'), 'internal mock searcher');
});

test('patternContext names the symbol, its parent, the file and the doc sentence', () => {
  const text = patternContext(
    chunk({ doc: '// Search runs BM25 and vector search in parallel. It fuses with RRF.' }),
  );
  assert.equal(
    text,
    'Method Search (search) in Engine, lines 10-42 of Go file internal/search/engine.go (internal search engine). Search runs BM25 and vector search in parallel.',
  );
});

test('patternContext describes anonymous blocks and markdown sections', () => {
  assert.match(
    patternContext(chunk({ symbol: null, kind: 'block' })),
    /^Top-level code, lines 10-42/,
  );
  const md = patternContext(
    chunk({
      path: 'README.md',
      language: 'markdown',
      kind: 'section',
      symbol: 'Install > From source',
    }),
  );
  assert.match(md, /^Section "Install > From source", lines 10-42 of Markdown file README.md/);
});

test('patternContext stays bounded for huge doc comments', () => {
  const text = patternContext(chunk({ doc: 'word '.repeat(5000) }));
  assert.ok(text.length <= 400, `length ${text.length}`);
});

test('the pattern contextualizer returns one context per chunk in order; embedding text puts context first', async () => {
  const c = createPatternContextualizer();
  const chunks = [chunk({ symbol: 'A' }), chunk({ symbol: 'B', kind: 'class' })];
  const out = await c.contextualize(chunks);
  assert.equal(out.length, 2);
  assert.match(out[0] ?? '', /^Method A/);
  assert.match(out[1] ?? '', /^Class B/);
  assert.equal(embeddingText({ ...chunks[0]!, context: 'CTX' }), `CTX\n${chunks[0]!.content}`);
});
