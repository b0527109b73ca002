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

test('a grammar that fails to load is warned once, with its language and reason, and said on every file it leaves without AST chunks', async () => {
  const warnings: string[] = [];
  const chunker = await createChunker({
    grammars: {
      wasmPaths: { ruby: '/nonexistent/tree-sitter-ruby.wasm' },
      warn: (m) => warnings.push(m),
    },
  });
  const text = 'class Greeter\n  def hello\n    "hi"\n  end\nend\n';
  const a = chunker.chunkFile({ path: 'lib/a.rb', language: 'ruby', text });
  const b = chunker.chunkFile({ path: 'lib/b.rb', language: 'ruby', text });
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0]!, /ruby grammar \(tree-sitter-ruby\) failed to load: .*nonexistent/);
  for (const r of [a, b]) {
    assert.match(r.noAst ?? '', /ruby grammar \(tree-sitter-ruby\) failed to load: .*nonexistent/);
    assert.deepEqual(r.symbols, []);
    assert.ok(r.chunks.length > 0 && r.chunks.every((c) => c.kind === 'window'));
  }
  // Other languages are untouched, and say nothing.
  const py = chunker.chunkFile({
    path: 'a.py',
    language: 'python',
    text: 'def f():\n    return 1\n',
  });
  assert.equal(py.noAst, undefined);
  assert.deepEqual(
    py.symbols.map((s) => s.name),
    ['f'],
  );
});

test('a language without a grammar is chunked by the brace recognizer and says so on every file; a language with none expected says nothing', async () => {
  const chunker = await createChunker();
  const swift = chunker.chunkFile({
    path: 'Sources/App/Greeter.swift',
    language: 'swift',
    text: 'struct Greeter {\n  func hello() -> String { "hi" }\n}\n',
  });
  assert.equal(swift.noAst, undefined);
  assert.match(swift.structural ?? '', /^chunked by the brace recognizer .*Swift \.wasm/);
  assert.deepEqual(
    swift.symbols.map((s) => `${s.kind}:${s.qualifiedName}`),
    ['struct:Greeter', 'method:Greeter.hello'],
  );
  const txt = chunker.chunkFile({ path: 'notes.txt', language: 'text', text: 'plain words\n' });
  assert.equal(txt.noAst, undefined);
  assert.equal(txt.structural, undefined);
  const py = chunker.chunkFile({
    path: 'a.py',
    language: 'python',
    text: 'def f():\n    return 1\n',
  });
  assert.equal(py.structural, undefined);
});

test('warm loads a grammar ahead of its first file, once, and only for a known language', async () => {
  const cache = new GrammarCache();
  try {
    await cache.warm('python');
    await cache.warm('no-such-language');
    assert.deepEqual(cache.loaded(), ['python']);
    const warmed = cache.get('python');
    assert.ok(warmed, 'the warmed grammar is the one used');
    await cache.warm('python');
    assert.equal(cache.get('python'), warmed, 'warming again keeps it');
  } finally {
    cache.delete();
  }
});

test('a warmed chunker chunks as a cold one, and warms only what it supports', async () => {
  const sample = {
    path: 'src/a.py',
    language: 'python',
    text: 'def alpha():\n    return 1\n\n\nclass Beta:\n    def gamma(self):\n        return 2\n',
  };
  const cold = await createChunker();
  const warm = await createChunker();
  assert.deepEqual(
    await warm.warm!([sample, { path: 'notes.txt', language: 'text', text: 'hello\n' }]),
    ['python'],
  );
  assert.deepEqual(warm.chunkFile(sample), cold.chunkFile(sample));
});

test('a grammar that fails to load while warming is reported once and not loaded again by its first file', async () => {
  const warnings: string[] = [];
  const cache = new GrammarCache({
    wasmPaths: { ruby: '/nonexistent/tree-sitter-ruby.wasm' },
    warn: (m) => warnings.push(m),
  });
  try {
    await cache.warm('ruby');
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(cache.failure('ruby') ?? '', /ruby grammar \(tree-sitter-ruby\) failed to load/);
    assert.equal(cache.get('ruby'), null);
    assert.equal(warnings.length, 1, 'the failure is remembered, not met again');
  } finally {
    cache.delete();
  }
});
