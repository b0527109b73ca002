import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Fused } from './ranking.js';
import { mergeVariants } from './variant-merge.js';

/** A fused list with these ids and scores, best first (keyword side only). */
function list(entries: [string, number][]): Fused {
  return {
    hits: entries.map(([id, fused], i) => ({
      id,
      fused,
      keyword: fused * 10,
      keywordRank: i + 1,
      vector: null,
      vectorRank: null,
    })),
    candidates: entries.map(([id, fused]) => ({ id, path: `${id}.py`, fused })),
    keywordById: new Map(),
  };
}

const ids = (f: Fused) => f.hits.map((h) => h.id);

describe('mergeVariants', () => {
  it('one list at weight 1 passes through unchanged', () => {
    const only = list([
      ['a', 1],
      ['b', 0.5],
    ]);
    assert.equal(mergeVariants([{ weight: 1, fused: only }], 'max'), only);
  });

  it('max: a chunk scores its best weighted score; side scores come from the view that scored it', () => {
    const words = list([
      ['a', 1],
      ['b', 0.6],
      ['c', 0.2],
    ]);
    const summary = list([
      ['c', 1],
      ['b', 0.9],
    ]);
    const merged = mergeVariants(
      [
        { weight: 1, fused: words },
        { weight: 0.8, fused: summary },
      ],
      'max',
    );
    assert.deepEqual(ids(merged), ['a', 'c', 'b']);
    assert.deepEqual(
      merged.hits.map((h) => Math.round(h.fused * 100) / 100),
      [1, 0.8, 0.72],
    );
    assert.equal(merged.hits[1]!.keywordRank, 1, "c's parts are the summary view's");
    assert.deepEqual(
      merged.candidates.map((c) => [c.id, c.path, c.fused]),
      merged.hits.map((h) => [h.id, `${h.id}.py`, h.fused]),
    );
  });

  it('rrf: found by several views beats found first by one; the best scores what the best view did', () => {
    const words = list([
      ['a', 1],
      ['b', 0.9],
      ['c', 0.1],
    ]);
    const summary = list([
      ['b', 1],
      ['c', 0.5],
    ]);
    const entities = list([
      ['c', 1],
      ['b', 0.2],
    ]);
    const merged = mergeVariants(
      [
        { weight: 1, fused: words },
        { weight: 1, fused: summary },
        { weight: 1, fused: entities },
      ],
      'rrf',
    );
    assert.deepEqual(ids(merged), ['b', 'c', 'a']);
    assert.ok(Math.abs(merged.hits[0]!.fused - 1) < 1e-9, 'rescaled to the best view score');
    assert.ok(merged.hits.every((h, i) => i === 0 || h.fused <= merged.hits[i - 1]!.fused));
  });

  it('keeps every keyword hit, the query view first', () => {
    const a = list([['x', 1]]);
    const b = list([
      ['x', 1],
      ['y', 0.5],
    ]);
    const hit = {
      id: 'x',
      path: 'x.py',
      score: 1,
      startLine: 1,
      endLine: 2,
      symbol: null,
      kind: 'function',
      language: 'python',
    };
    a.keywordById = new Map([['x', { ...hit, startLine: 10 }]]);
    b.keywordById = new Map([
      ['x', hit],
      ['y', { ...hit, id: 'y', path: 'y.py' }],
    ]);
    const merged = mergeVariants(
      [
        { weight: 1, fused: a },
        { weight: 1, fused: b },
      ],
      'max',
    );
    assert.equal(merged.keywordById.get('x')!.startLine, 10);
    assert.ok(merged.keywordById.has('y'));
  });
});
