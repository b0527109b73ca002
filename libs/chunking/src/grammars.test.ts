import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Language } from 'web-tree-sitter';
import { createChunker } from './chunker.js';
import { GrammarCache, initTreeSitter } from './grammars.js';
import { STRUCTURAL_LANGUAGES } from './languages/index.js';

before(async () => {
  await initTreeSitter();
});

test('every structural language loads its grammar and compiles its definition query', () => {
  const cache = new GrammarCache();
  try {
    for (const id of STRUCTURAL_LANGUAGES) {
      const g = cache.get(id);
      assert.ok(g, `${id} has no grammar`);
      assert.equal(g.defsQuery.patternCount(), g.spec.defs.length, id);
    }
  } finally {
    cache.delete();
  }
});

test('a grammar is loaded only when a file of its language is met', () => {
  const cache = new GrammarCache();
  try {
    assert.deepEqual(cache.loaded(), []);
    cache.get('c');
    cache.get('c');
    assert.deepEqual(cache.loaded(), ['c']);
  } finally {
    cache.delete();
  }
});

test('a repository without C++ never loads the C++ grammar', async () => {
  const loadSync = Language.loadSync;
  let loads = 0;
  Language.loadSync = (...args: Parameters<typeof loadSync>) => {
    loads++;
    return loadSync.apply(Language, args);
  };
  try {
    const chunker = await createChunker();
    chunker.chunkFile({ path: 'a.c', language: 'c', text: 'int f(void) { return 1; }\n' });
    chunker.chunkFile({ path: 'b.c', language: 'c', text: 'int g(void) { return 2; }\n' });
    chunker.chunkFile({ path: 'list.h', language: 'c', text: 'int h(void);\n' });
    chunker.chunkFile({ path: 'x.txt', language: 'text', text: 'class Foo {};\n' });
    assert.equal(loads, 1, 'only the C grammar');
    chunker.chunkFile({ path: 'shape.h', language: 'c', text: 'class Shape {};\n' });
    assert.equal(loads, 2, 'a C++ header loads C++');
  } finally {
    Language.loadSync = loadSync;
  }
});
