import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuse, minMaxNormalize } from './fusion.js';

const close = (actual: number, expected: number, msg?: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${msg ?? ''} ${actual} != ${expected}`);

describe('minMaxNormalize', () => {
  it('maps the best to 1 and the worst to 0, linearly between', () => {
    assert.deepEqual(minMaxNormalize([10, 6, 2]), [1, 0.5, 0]);
  });
  it('maps a single score to 1', () => {
    assert.deepEqual(minMaxNormalize([3.2]), [1]);
  });
  it('maps all-equal scores to 1, not NaN', () => {
    assert.deepEqual(minMaxNormalize([2, 2, 2]), [1, 1, 1]);
  });
  it('handles an empty list', () => {
    assert.deepEqual(minMaxNormalize([]), []);
  });
});

describe('fuse: RRF', () => {
  it('sums 1/(k+rank) over the sides, k = 60', () => {
    const out = fuse({
      method: 'rrf',
      keyword: [
        { id: 'a', score: 10 },
        { id: 'b', score: 6 },
        { id: 'c', score: 2 },
      ],
      vector: [
        { id: 'b', score: 0.9 },
        { id: 'd', score: 0.5 },
      ],
    });
    assert.deepEqual(
      out.map((h) => h.id),
      ['b', 'a', 'd', 'c'],
    );
    const by = new Map(out.map((h) => [h.id, h]));
    close(by.get('b')!.fused, 1 / 62 + 1 / 61);
    close(by.get('a')!.fused, 1 / 61);
    close(by.get('d')!.fused, 1 / 62);
    close(by.get('c')!.fused, 1 / 63);
    assert.deepEqual(
      { ...by.get('b')!, fused: 0 },
      { id: 'b', fused: 0, keyword: 6, keywordRank: 2, vector: 0.9, vectorRank: 1 },
    );
    assert.equal(by.get('d')!.keyword, null);
    assert.equal(by.get('d')!.keywordRank, null);
  });

  it('uses the given k', () => {
    const [top] = fuse({ method: 'rrf', k: 1, keyword: [{ id: 'a', score: 1 }], vector: null });
    close(top!.fused, 1 / 2);
  });

  it('ignores scores: only ranks count', () => {
    const a = fuse({
      method: 'rrf',
      keyword: [
        { id: 'x', score: 1000 },
        { id: 'y', score: 999 },
      ],
      vector: [
        { id: 'y', score: 0.01 },
        { id: 'x', score: 0.001 },
      ],
    });
    // Symmetric ranks: equal fused scores, tie broken by best rank then id.
    close(a[0]!.fused, a[1]!.fused);
    assert.deepEqual(
      a.map((h) => h.id),
      ['x', 'y'],
    );
  });
});

describe('fuse: linear', () => {
  it('blends min-max normalised scores, 0.4 vector / 0.6 keyword by default', () => {
    const out = fuse({
      method: 'linear',
      keyword: [
        { id: 'a', score: 10 },
        { id: 'b', score: 6 },
        { id: 'c', score: 2 },
      ],
      vector: [
        { id: 'b', score: 0.9 },
        { id: 'd', score: 0.5 },
      ],
    });
    const by = new Map(out.map((h) => [h.id, h.fused]));
    // keyword normalised: a 1, b 0.5, c 0; vector normalised: b 1, d 0.
    close(by.get('b')!, 0.4 * 1 + 0.6 * 0.5);
    close(by.get('a')!, 0.6 * 1);
    close(by.get('c')!, 0);
    close(by.get('d')!, 0);
    // c and d tie at 0: d's best rank (2) beats c's (3).
    assert.deepEqual(
      out.map((h) => h.id),
      ['b', 'a', 'd', 'c'],
    );
  });

  it('honours the vector weight', () => {
    const out = fuse({
      method: 'linear',
      vectorWeight: 0.2,
      keyword: [
        { id: 'a', score: 4 },
        { id: 'b', score: 2 },
      ],
      vector: [
        { id: 'b', score: 0.8 },
        { id: 'a', score: 0.4 },
      ],
    });
    assert.deepEqual(
      out.map((h) => [h.id, h.fused]),
      [
        ['a', 0.8],
        ['b', 0.2],
      ],
    );
  });

  it('gives a single-result side its full weight (normalised to 1)', () => {
    const out = fuse({
      method: 'linear',
      keyword: [{ id: 'a', score: 5 }],
      vector: [
        { id: 'a', score: 0.3 },
        { id: 'b', score: 0.2 },
      ],
    });
    close(out[0]!.fused, 1);
    assert.equal(out[0]!.id, 'a');
    close(out[1]!.fused, 0);
  });

  it('treats all-equal scores as equally best', () => {
    const out = fuse({
      method: 'linear',
      keyword: [
        { id: 'a', score: 2 },
        { id: 'b', score: 2 },
      ],
      vector: [],
    });
    assert.equal(out.length, 2);
    // Both at the keyword side's best: its whole share of the default blend, 0.6.
    for (const h of out) close(h.fused, 0.6);
  });

  it('gives the whole weight to the only side that ran', () => {
    const kw = fuse({
      method: 'linear',
      keyword: [
        { id: 'a', score: 3 },
        { id: 'b', score: 1 },
      ],
      vector: null,
    });
    assert.deepEqual(
      kw.map((h) => [h.id, h.fused]),
      [
        ['a', 1],
        ['b', 0],
      ],
    );
    const vec = fuse({ method: 'linear', keyword: null, vector: [{ id: 'z', score: 0.1 }] });
    assert.deepEqual(
      vec.map((h) => [h.id, h.fused]),
      [['z', 1]],
    );
  });

  it('returns nothing for no candidates', () => {
    assert.deepEqual(fuse({ method: 'linear', keyword: [], vector: [] }), []);
    assert.deepEqual(fuse({ method: 'rrf', keyword: null, vector: null }), []);
  });

  it('counts a duplicated id once, at its best rank', () => {
    const out = fuse({
      method: 'rrf',
      keyword: [
        { id: 'a', score: 3 },
        { id: 'a', score: 1 },
      ],
      vector: null,
    });
    assert.equal(out.length, 1);
    assert.equal(out[0]!.keywordRank, 1);
  });
});
