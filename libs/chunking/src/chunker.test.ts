import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { LANGUAGES } from '@codesift/analysis';
import { Tree } from 'web-tree-sitter';
import { type Chunker, type ChunkResult, createChunker } from './chunker.js';
import { STRUCTURAL_LANGUAGES } from './languages/index.js';
import {
  assertWellFormed,
  chunkFor,
  describe,
  lineOf,
  symbolFor,
} from './testing/chunk-assertions.js';

let chunker: Chunker;
before(async () => {
  chunker = await createChunker();
});

function longFunction(bodyLines: number): string {
  const body = Array.from({ length: bodyLines }, (_, i) => `  total += step(${i});`);
  return [
    "import { step } from './step.js';",
    '',
    '/** Sums many steps. */',
    'export function sumAll(): number {',
    '  let total = 0;',
    ...body,
    '  return total;',
    '}',
    '',
  ].join('\n');
}

test('every structural language is a language of the table, with test-file rules unless it is data', () => {
  const data = new Set(['json', 'yaml', 'toml', 'hcl']);
  for (const lang of STRUCTURAL_LANGUAGES) {
    assert.ok(Object.hasOwn(LANGUAGES, lang), `${lang} has no entry in LANGUAGES`);
    assert.equal(LANGUAGES[lang]!.testFiles !== undefined, !data.has(lang), lang);
  }
});

test('supports exactly the tree-sitter languages', () => {
  for (const lang of STRUCTURAL_LANGUAGES) assert.equal(chunker.supports(lang), true, lang);
  assert.deepEqual([...STRUCTURAL_LANGUAGES].sort(), [
    'c',
    'cpp',
    'csharp',
    'go',
    'hcl',
    'java',
    'javascript',
    'json',
    'kotlin',
    'lua',
    'php',
    'python',
    'ruby',
    'rust',
    'scala',
    'shell',
    'toml',
    'tsx',
    'typescript',
    'yaml',
  ]);
  // Swift: no grammar package ships a .wasm; the brace recognizer reads it (languages/swift.test.ts).
  for (const lang of ['markdown', 'text', 'ini', 'swift', '', 'constructor', '__proto__']) {
    assert.equal(chunker.supports(lang), false, lang);
  }
});

test('a long function is split into windows that overlap by overlapLines and cover it', () => {
  const text = longFunction(200);
  const r = chunker.chunkFile({ path: 'sum.ts', language: 'typescript', text });
  assertWellFormed(r, text);
  const windows = r.chunks.filter((c) => c.symbol === 'sumAll');
  assert.equal(windows.length, 3, describe(r));
  assert.equal(windows[0]!.startLine, lineOf(text, '/** Sums'));
  assert.equal(windows[windows.length - 1]!.endLine, lineOf(text, 'return total') + 1);
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i]!;
    assert.equal(w.kind, 'function');
    assert.equal(w.signature, 'export function sumAll(): number');
    assert.equal(w.doc, 'Sums many steps.');
    assert.ok(w.endLine - w.startLine + 1 <= 80);
    if (i > 0) assert.equal(w.startLine, windows[i - 1]!.endLine - 8 + 1, 'overlap of 8 lines');
  }
  assert.deepEqual(
    r.symbols.map((s) => s.qualifiedName),
    ['sumAll'],
  );
});

test('overlap and window size follow the options', async () => {
  const custom = await createChunker({ maxChunkLines: 20, overlapLines: 3 });
  const text = longFunction(50);
  const r = custom.chunkFile({ path: 'sum.ts', language: 'typescript', text });
  assertWellFormed(r, text);
  const windows = r.chunks.filter((c) => c.symbol === 'sumAll');
  assert.ok(windows.length >= 3);
  for (let i = 1; i < windows.length; i++) {
    assert.ok(windows[i]!.endLine - windows[i]!.startLine + 1 <= 20);
    assert.equal(windows[i]!.startLine, windows[i - 1]!.endLine - 3 + 1);
  }
});

test('adjacent tiny siblings are merged under the first one, bounded by maxChunkLines', async () => {
  const fns = Array.from(
    { length: 8 },
    (_, i) => `export function get${i}(): number {\n  return ${i};\n}\n`,
  );
  const text = fns.join('\n');
  const r = chunker.chunkFile({ path: 'getters.ts', language: 'typescript', text });
  assertWellFormed(r, text);
  assert.equal(r.chunks.length, 1, describe(r));
  assert.equal(r.chunks[0]!.symbol, 'get0');
  assert.equal(r.chunks[0]!.kind, 'function');
  assert.equal(r.chunks[0]!.signature, 'export function get0(): number');
  assert.equal(r.symbols.length, 8);

  const bounded = await createChunker({ maxChunkLines: 10 });
  const b = bounded.chunkFile({ path: 'getters.ts', language: 'typescript', text });
  assertWellFormed(b, text);
  assert.deepEqual(
    b.chunks.map((c) => `${c.startLine}-${c.endLine}:${c.symbol}`),
    ['1-7:get0', '9-15:get2', '17-23:get4', '25-31:get6'],
  );

  const unmerged = await createChunker({ minChunkLines: 1 });
  assert.equal(
    unmerged.chunkFile({ path: 'getters.ts', language: 'typescript', text }).chunks.length,
    8,
  );
});

test('tiny members of a split class merge under the first member', async () => {
  const getters = Array.from(
    { length: 4 },
    (_, i) => `  get g${i}(): number {\n    return ${i};\n  }`,
  );
  const work = Array.from({ length: 12 }, (_, i) => `    this.n += ${i};`);
  const text = [
    'export class Box {',
    '  private n = 0;',
    '',
    '  run(): void {',
    ...work,
    '  }',
    '',
    getters.join('\n\n'),
    '}',
    '',
  ].join('\n');
  const small = await createChunker({ maxChunkLines: 16 });
  const r = small.chunkFile({ path: 'box.ts', language: 'typescript', text });
  assertWellFormed(r, text);
  assert.deepEqual(
    r.chunks.map((c) => `${c.kind}:${c.symbol}`),
    ['class:Box', 'method:Box.run', 'method:Box.g0'],
  );
  const merged = chunkFor(r, 'Box.g0');
  assert.equal(merged.startLine, lineOf(text, 'get g0'));
  assert.equal(merged.endLine, text.split('\n').length - 1, 'closing brace included');
});

test('non-structural languages get line windows', () => {
  const text = Array.from({ length: 150 }, (_, i) => `line ${i + 1}`).join('\n');
  for (const language of ['text', 'ini', 'no-such-language']) {
    const r = chunker.chunkFile({ path: `notes.${language}`, language, text });
    assertWellFormed(r, text);
    assert.deepEqual(
      r.chunks.map((c) => [c.startLine, c.endLine]),
      [
        [1, 60],
        [53, 112],
        [105, 150],
      ],
    );
    for (const c of r.chunks) {
      assert.equal(c.kind, 'window');
      assert.equal(c.symbol, null);
      assert.equal(c.language, language);
    }
    assert.deepEqual(r.symbols, []);
  }
});

test('windows skip leading and trailing blank lines and blank-only windows', async () => {
  const custom = await createChunker({ windowLines: 5, overlapLines: 0 });
  const text = `\n\n${'a\n'.repeat(5)}${'\n'.repeat(12)}${'b\n'.repeat(3)}\n\n`;
  const r = custom.chunkFile({ path: 'x.txt', language: 'text', text });
  assertWellFormed(r, text);
  for (const c of r.chunks) assert.match(c.content, /\S/);
  assert.equal(r.chunks[0]!.startLine, 3);
  assert.equal(r.chunks[r.chunks.length - 1]!.endLine, 22);
});

test('a minified 500 KB single line is split by characters', () => {
  let text = '';
  for (let i = 0; text.length < 500_000; i++) {
    text += `function f${i}(a,b){return a*${i}+b};var v${i}={k:"${'x'.repeat(i % 40)}"};`;
  }
  const started = performance.now();
  const r = chunker.chunkFile({ path: 'dist/app.min.js', language: 'javascript', text });
  const elapsed = performance.now() - started;
  assert.ok(r.chunks.length >= 500_000 / 3000, `${r.chunks.length} chunks`);
  for (const c of r.chunks) {
    assert.ok(c.content.length <= 3000, `chunk of ${c.content.length} chars`);
    assert.equal(c.startLine, 1);
    assert.equal(c.endLine, 1);
    assert.equal(c.kind, 'window');
  }
  assert.equal(r.chunks.map((c) => c.content).join(''), text);
  assert.equal(new Set(r.chunks.map((c) => c.id)).size, r.chunks.length);
  assert.ok(elapsed < 2000, `took ${elapsed} ms`);
});

test('an over-long line inside a function does not make an over-long chunk', () => {
  const text = [
    'export function blob(): string {',
    `  return "${'z'.repeat(10_000)}";`,
    '}',
    '',
    'export function after(): number {',
    '  return 1;',
    '}',
    '',
    ...Array.from(
      { length: 100 },
      (_, i) => `export function pad${i}(): string {\n  return 'padding ${i}';\n}\n`,
    ),
  ].join('\n');
  const r = chunker.chunkFile({ path: 'blob.ts', language: 'typescript', text });
  assertWellFormedOrSliced(r, text);
  for (const c of r.chunks) assert.ok(c.content.length <= 3000, `${c.content.length} chars`);
  const blob = r.chunks.filter((c) => c.symbol === 'blob');
  assert.ok(blob.length >= 4);
  assert.equal(
    blob
      .map((c) => c.content)
      .join('')
      .replace(/\n/g, ''),
    text.split('\n').slice(0, 3).join(''),
  );
  assert.equal(symbolFor(r, 'after').startLine, 5);
});

/** Like assertWellFormed, but a chunk may be a slice of one over-long line. */
function assertWellFormedOrSliced(r: ChunkResult, text: string): void {
  const lines = text.split('\n');
  for (const c of r.chunks) {
    const source = lines.slice(c.startLine - 1, c.endLine).join('\n');
    if (c.content !== source) {
      assert.equal(c.startLine, c.endLine);
      assert.ok(source.includes(c.content));
    }
  }
}

test('a file with syntax errors still yields its definitions', () => {
  const text = [
    'function first(a: number) {',
    '  return a + ;',
    '}',
    '',
    'class Broken {',
    '  method( {',
    '    return 1',
    '  }',
    '}',
    '',
    'export function last(): string {',
    "  return 'ok';",
    '}',
    '',
  ].join('\n');
  const r = chunker.chunkFile({ path: 'broken.ts', language: 'typescript', text });
  assertWellFormed(r, text);
  const names = r.symbols.map((s) => s.qualifiedName);
  assert.ok(names.includes('first'), names.join(','));
  assert.ok(names.includes('last'), names.join(','));
  assert.equal(symbolFor(r, 'last').startLine, 11);
});

test('CRLF sources chunk like LF ones and keep their exact bytes', () => {
  const lf = longFunction(100).replace('import', '// header\nimport');
  const crlf = lf.replace(/\n/g, '\r\n');
  const a = chunker.chunkFile({ path: 'a.ts', language: 'typescript', text: lf });
  const b = chunker.chunkFile({ path: 'a.ts', language: 'typescript', text: crlf });
  assertWellFormed(b, crlf);
  assert.deepEqual(
    b.chunks.map((c) => [c.startLine, c.endLine, c.symbol, c.kind, c.signature, c.doc]),
    a.chunks.map((c) => [c.startLine, c.endLine, c.symbol, c.kind, c.signature, c.doc]),
  );
  assert.deepEqual(
    b.symbols.map((s) => [s.qualifiedName, s.startLine, s.endLine, s.doc]),
    [['sumAll', 5, 108, 'Sums many steps.']],
  );
  for (const c of b.chunks) {
    assert.ok(!c.content.endsWith('\r'));
    if (c.endLine > c.startLine) assert.ok(c.content.includes('\r\n'));
  }
});

test('ids are deterministic and change only with the chunk', async () => {
  const text = `${longFunction(10)}\nexport function other(): number {\n  const x = 1;\n  const y = 2;\n  const z = 3;\n  return x + y + z;\n}\n`;
  const a = chunker.chunkFile({ path: 'd.ts', language: 'typescript', text });
  const again = chunker.chunkFile({ path: 'd.ts', language: 'typescript', text });
  const fresh = (await createChunker()).chunkFile({ path: 'd.ts', language: 'typescript', text });
  assert.deepEqual(
    again.chunks.map((c) => c.id),
    a.chunks.map((c) => c.id),
  );
  assert.deepEqual(
    fresh.chunks.map((c) => c.id),
    a.chunks.map((c) => c.id),
  );
  assert.deepEqual(
    fresh.symbols.map((s) => s.id),
    a.symbols.map((s) => s.id),
  );
  const edited = chunker.chunkFile({
    path: 'd.ts',
    language: 'typescript',
    text: text.replace('x + y + z', 'x * y * z'),
  });
  assert.equal(edited.chunks.length, a.chunks.length);
  assert.equal(edited.chunks[0]!.id, a.chunks[0]!.id);
  assert.notEqual(edited.chunks.at(-1)!.id, a.chunks.at(-1)!.id);
  const moved = chunker.chunkFile({ path: 'other/d.ts', language: 'typescript', text });
  assert.notEqual(moved.chunks[0]!.id, a.chunks[0]!.id);
});

test('empty, blank and malformed inputs never throw', () => {
  for (const language of ['typescript', 'python', 'markdown', 'text']) {
    for (const text of ['', '\n', '   \n\t\n\r\n', '\uFEFF']) {
      const r = chunker.chunkFile({ path: 'e', language, text });
      assert.deepEqual(r, { chunks: [], symbols: [] }, `${language} ${JSON.stringify(text)}`);
    }
  }
  // Input without text has nothing to chunk.
  for (const input of [null, undefined, {}, { path: 'x', language: 'go', text: 42 }]) {
    const r = chunker.chunkFile(input as never);
    assert.deepEqual(r, { chunks: [], symbols: [] }, JSON.stringify(input));
  }
  // Text that does not parse is still chunked, so it stays searchable.
  for (const input of [
    { path: 'x', language: 'rust', text: '\u0000\u0001fn \uD800 {{{{' },
    { path: 'x', language: 'python', text: 'def (:\n\tpass\n' },
  ]) {
    const r = chunker.chunkFile(input);
    assert.ok(r.chunks.length > 0, `${input.language}: no chunks`);
    assertWellFormed(r, input.text);
  }
});

test('bad options fall back to defaults', async () => {
  const odd = await createChunker({
    maxChunkLines: -1,
    maxChunkChars: Number.NaN,
    overlapLines: 1000,
    minChunkLines: -5,
    windowLines: 0,
  });
  const text = longFunction(200);
  const r = odd.chunkFile({ path: 'sum.ts', language: 'typescript', text });
  assertWellFormed(r, text);
  assert.ok(r.chunks.every((c) => c.endLine - c.startLine + 1 <= 80));
});

test('tabs and non-ASCII text keep exact ranges', () => {
  const text = [
    '# -*- coding: utf-8 -*-',
    'GRÜSSE = "héllo wörld 👋"',
    '',
    '',
    'class Café:',
    '\t"""Ein Café — mit Umlauten."""',
    '',
    '\tdef préparer(self, tasse: str) -> str:',
    '\t\treturn f"☕ {tasse}"',
    '',
    '',
    'def naïve():',
    '\treturn "日本語"',
    '',
  ].join('\n');
  const r = chunker.chunkFile({ path: 'café.py', language: 'python', text });
  assertWellFormed(r, text);
  const cafe = symbolFor(r, 'Café');
  assert.equal(cafe.startLine, 5);
  assert.equal(cafe.endLine, 9);
  assert.equal(cafe.doc, 'Ein Café — mit Umlauten.');
  const prep = symbolFor(r, 'Café.préparer');
  assert.equal(prep.signature, 'def préparer(self, tasse: str) -> str');
  assert.equal(prep.startLine, 8);
  assert.equal(symbolFor(r, 'naïve').startLine, 12);
});

test('a 20,000-line file is chunked completely and quickly', () => {
  const parts: string[] = [];
  for (let i = 0; parts.length < 20_000; i++) {
    parts.push(`/** Function ${i}. */`, `export function f${i}(x: number): number {`);
    for (let j = 0; j < 6; j++) parts.push(`  x = x * ${j + 1} + ${i};`);
    parts.push('  return x;', '}', '');
  }
  const text = parts.join('\n');
  const started = performance.now();
  const r = chunker.chunkFile({ path: 'huge.ts', language: 'typescript', text });
  const elapsed = performance.now() - started;
  assertWellFormed(r, text);
  assert.equal(r.symbols.length, Math.ceil(20_000 / 11));
  assert.equal(r.chunks.length, r.symbols.length);
  assert.equal(r.chunks[1234]!.symbol, 'f1234');
  assert.ok(elapsed < 5000, `took ${elapsed} ms`);
});

test('every syntax tree is deleted after use', () => {
  // web-tree-sitter also frees trees from a FinalizationRegistry, which hides
  // leaks from memory readings until GC; count explicit deletes instead.
  const original = Tree.prototype.delete;
  let deleted = 0;
  Tree.prototype.delete = function (this: Tree) {
    deleted++;
    original.call(this);
  };
  try {
    const text = longFunction(30);
    for (let i = 0; i < 200; i++)
      chunker.chunkFile({ path: `m${i}.ts`, language: 'typescript', text });
    chunker.chunkFile({ path: 'x.py', language: 'python', text: 'def broken(:\n' });
    chunker.chunkFile({ path: 'x.md', language: 'markdown', text: '# no tree here\n' });
  } finally {
    Tree.prototype.delete = original;
  }
  assert.equal(deleted, 201);
});
