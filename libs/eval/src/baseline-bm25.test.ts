import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Bm25Index, Bm25WindowIndex, buildBaselineIndex, tokenize } from './baseline-bm25.js';

describe('baseline BM25', () => {
  test('the generic tokenizer lowercases, splits on non-alphanumerics and drops stop words', () => {
    assert.deepEqual(tokenize("The HTTPAdapter's send() failed: max_retries=3"), [
      'httpadapter',
      'send',
      'failed',
      'max',
      'retries',
      '3',
    ]);
    // No identifier splitting: that is codesift's analyzer, not the baseline's.
    assert.deepEqual(tokenize('EmbedBatcher'), ['embedbatcher']);
  });

  test('scores a tiny corpus as computed by hand (k1 = 1.2, b = 0.75)', () => {
    const index = new Bm25Index();
    index.add('d1', 'the cat sat'); // [cat, sat]
    index.add('d2', 'dog dog barks'); // [dog, dog, barks]
    index.add('d3', 'cat and dog'); // [cat, dog]
    const avgdl = 7 / 3;
    const idfDog = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)); // df(dog) = 2
    const part = (tf: number, len: number) =>
      (tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / avgdl));
    const hits = index.search('dog', 10);
    assert.deepEqual(
      hits.map((h) => h.path),
      ['d2', 'd3'],
    );
    assert.ok(Math.abs(hits[0]!.score - idfDog * part(2, 3)) < 1e-12);
    assert.ok(Math.abs(hits[1]!.score - idfDog * part(1, 2)) < 1e-12);

    // A repeated query word counts twice; stop words in the query count not at all.
    const twice = index.search('the dog and the dog', 10);
    assert.ok(Math.abs(twice[0]!.score - 2 * idfDog * part(2, 3)) < 1e-12);
    assert.deepEqual(index.search('the and', 10), []);
    assert.deepEqual(
      index.search('cat', 1).map((h) => h.path),
      ['d1'],
      'shorter document wins a tie in tf, and the limit holds',
    );
  });

  test('builds over the files the scanner accepts', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'codesift-bm25-'));
    try {
      mkdirSync(path.join(root, 'src'));
      mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
      writeFileSync(path.join(root, 'src', 'graph.py'), 'def add_edge(graph, a, b):\n    pass\n');
      writeFileSync(path.join(root, 'node_modules', 'dep', 'edge.js'), 'edge edge edge');
      writeFileSync(path.join(root, 'blob.bin'), new Uint8Array([0, 1, 2, 0, 101, 100, 103, 101]));
      const { files: index, windows } = await buildBaselineIndex(root);
      assert.equal(windows, undefined, 'no windowed index unless asked for');
      assert.equal(index.size, 1);
      assert.deepEqual(
        index.search('edge', 10).map((h) => h.path),
        ['src/graph.py'],
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('the windowed index cuts files into fixed line windows and returns their ranges', async () => {
    const windows = new Bm25WindowIndex(3);
    windows.add('a.c', 'int x;\nint y;\nint z;\nparse_header(h);\nreturn 0;\n');
    windows.add('b.c', 'void f(void);\n');
    assert.equal(windows.size, 3, 'a.c is two windows (3 + 2 lines), b.c one');
    assert.deepEqual(windows.search('parse_header', 10), [
      { path: 'a.c', startLine: 4, endLine: 5, score: windows.search('parse_header', 1)[0]!.score },
    ]);
    const root = mkdtempSync(path.join(tmpdir(), 'codesift-bm25w-'));
    try {
      writeFileSync(path.join(root, 'long.py'), `${'x = 1\n'.repeat(45)}def target():\n    pass\n`);
      const built = await buildBaselineIndex(root, { windowLines: 40 });
      const hit = built.windows!.search('target', 10);
      assert.deepEqual(
        hit.map((h) => [h.path, h.startLine, h.endLine]),
        [['long.py', 41, 47]],
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
