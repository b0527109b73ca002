import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze } from '@codesift/analysis';
import { parseQuery } from '../parse/parse.js';
import { type ExpandedTerm, expandForKeywords } from './expand.js';
import { mergeSynonymTables } from './synonyms.js';

function asMap(terms: ExpandedTerm[]): Map<string, [number, string]> {
  return new Map(terms.map((t) => [t.term, [t.weight, t.source]]));
}

test('"Search function": originals at 1, code synonyms at 0.3', () => {
  const terms = expandForKeywords(parseQuery('Search function'));
  const m = asMap(terms);
  assert.deepEqual(m.get('search'), [1, 'original']);
  assert.deepEqual(m.get('function'), [1, 'original']);
  for (const s of ['find', 'query', 'engine', 'lookup'])
    assert.deepEqual(m.get(s), [0.3, 'synonym']);
  for (const s of ['func', 'fn', 'method', 'def']) assert.deepEqual(m.get(s), [0.3, 'synonym']);
  assert.equal(terms.find((t) => t.term === 'fn')?.from, 'function');
  // Highest weight first.
  assert.deepEqual(
    terms.slice(0, 2).map((t) => t.term),
    ['search', 'function'],
  );
});

test('"OllamaEmbedder": whole, parts, case variants, part synonyms', () => {
  const m = asMap(expandForKeywords(parseQuery('OllamaEmbedder')));
  assert.deepEqual(m.get('ollamaembedder'), [1, 'original']);
  assert.deepEqual(m.get('ollama'), [0.5, 'identifier-part']);
  assert.deepEqual(m.get('embedder'), [0.5, 'identifier-part']);
  assert.deepEqual(m.get('ollama_embedder'), [0.5, 'case-variant']);
  // A synonym of a part counts 0.3 x 0.5.
  assert.deepEqual(m.get('embed'), [0.15, 'synonym']);
});

test('case variants: camel <-> snake <-> kebab, as the index spells them', () => {
  const a = asMap(expandForKeywords(parseQuery('addEdge')));
  assert.deepEqual(a.get('add_edge'), [0.5, 'case-variant']);
  assert.deepEqual(a.get('add-edge'), [0.5, 'case-variant']);
  const b = asMap(expandForKeywords(parseQuery('max_file_bytes')));
  assert.deepEqual(b.get('max_file_bytes'), [1, 'original']);
  assert.deepEqual(b.get('maxfilebytes'), [0.5, 'case-variant']);
  assert.deepEqual(b.get('max-file-bytes'), [0.5, 'case-variant']);
});

test('duplicates keep their highest weight', () => {
  // `search` is typed (1) and also a synonym of `find` (0.3) and a part of searchEngine (0.5).
  const terms = expandForKeywords(parseQuery('find search searchEngine'));
  const search = terms.filter((t) => t.term === 'search');
  assert.equal(search.length, 1);
  assert.deepEqual([search[0]!.weight, search[0]!.source], [1, 'original']);
  assert.equal(new Set(terms.map((t) => t.term)).size, terms.length);
});

test('fillers, stop words and generic words are not expanded', () => {
  const terms = expandForKeywords(parseQuery('Tell me about D40'));
  assert.deepEqual(
    terms.map((t) => [t.term, t.weight, t.source]),
    [
      ['d40', 1, 'original'],
      ['40', 0.5, 'identifier-part'],
    ],
  );
  const g = expandForKeywords(parseQuery('get data'), { get: ['fetch'], data: ['payload'] });
  assert.deepEqual(
    g.map((t) => t.term),
    ['get', 'data'],
  );
});

test('codes, paths and phrases are kept exact', () => {
  const c = asMap(expandForKeywords(parseQuery('30 CFR 75.1725')));
  assert.deepEqual([...c.keys()], ['30', 'cfr', '75.1725', '75', '1725']);
  // Path parts are terms, but their parts get no synonyms (`scan`, `walk` are locations here).
  const p = asMap(expandForKeywords(parseQuery('src/scanner/walk.ts')));
  assert.deepEqual(p.get('src/scanner/walk.ts'), [1, 'original']);
  assert.deepEqual(p.get('walk'), [0.5, 'identifier-part']);
  assert.equal(p.has('traverse'), false);
  const q = asMap(expandForKeywords(parseQuery('"search function"')));
  assert.deepEqual([...q.keys()], ['search', 'function']);
});

test('every term is an analyzer term, so it can match the index', () => {
  const q = parseQuery(
    'How does OllamaEmbedder handle the config? `max_file_bytes` in src/a/b.ts, HTTP-404 errors',
  );
  for (const t of expandForKeywords(q)) {
    assert.deepEqual(analyze(t.term).slice(0, 1), [t.term], t.term);
  }
});

test('a custom table and weights are used', () => {
  const table = mergeSynonymTables({}, { scanner: ['walker', 'crawler'] });
  const m = asMap(expandForKeywords(parseQuery('scanner'), table, { synonym: 0.2 }));
  assert.deepEqual(m.get('walker'), [0.2, 'synonym']);
  assert.deepEqual(m.get('crawler'), [0.2, 'synonym']);
});

test('stack traces contribute their signals without synonyms', () => {
  const q = parseQuery(
    'Traceback (most recent call last):\n  File "/app/src/indexer.py", line 3, in build_index\n' +
      'ValueError: bad config',
  );
  const m = asMap(expandForKeywords(q));
  assert.deepEqual(m.get('build_index'), [1, 'original']);
  assert.deepEqual(m.get('valueerror'), [1, 'original']);
  assert.deepEqual(m.get('config'), [1, 'original']);
  assert.equal(m.has('settings'), false);
});

test('a word repeated in a trace and in prose is expanded as each', () => {
  // `config` comes first in the trace (exact: no synonyms), then typed in
  // prose (full: synonyms): skipping repeats must tell the two apart.
  const trace =
    'Traceback (most recent call last):\n  File "/app/src/indexer.py", line 3, in build_index\n' +
    'ValueError: bad config\n';
  const once = asMap(expandForKeywords(parseQuery(`${trace}the config is wrong`)));
  assert.equal(once.has('settings'), true);
  // A report pasting the same trace many times expands like one copy.
  const many = expandForKeywords(parseQuery(`${trace.repeat(20)}the config is wrong`));
  assert.deepEqual(asMap(many), once);
});
