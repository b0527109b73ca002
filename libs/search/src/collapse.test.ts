import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collapseByPath, collapseDecayed } from './collapse.js';

describe('collapseByPath', () => {
  it('keeps the first (best) hit of each file, in ranking order', () => {
    const ranked = [
      { id: 1, path: 'a.ts' },
      { id: 2, path: 'b.ts' },
      { id: 3, path: 'a.ts' },
      { id: 4, path: 'c.ts' },
      { id: 5, path: 'b.ts' },
    ];
    assert.deepEqual(
      collapseByPath(ranked).map((r) => r.id),
      [1, 2, 4],
    );
  });
  it('handles an empty list', () => {
    assert.deepEqual(collapseByPath([]), []);
  });
});

describe('collapseDecayed', () => {
  const hits = [
    { id: 'a1', path: 'a.py', score: 1 },
    { id: 'b1', path: 'b.py', score: 0.9 },
    { id: 'b2', path: 'b.py', score: 0.5 },
    { id: 'b3', path: 'b.py', score: 0.4 },
    { id: 'b4', path: 'b.py', score: 0.4 },
    { id: 'c1', path: 'c.py', score: 0.2 },
  ];

  it('scores a file by its best chunk plus a decayed share of the next ones', () => {
    const out = collapseDecayed(hits, 0.5, 3);
    assert.deepEqual(
      out.map((h) => [h.id, h.score]),
      [
        ['b1', 0.9 + 0.25 + 0.1],
        ['a1', 1],
        ['c1', 0.2],
      ],
    );
  });

  it('equals the best-chunk collapse with decay 0 or one chunk', () => {
    const best = collapseByPath(hits).map((h) => h.id);
    assert.deepEqual(
      collapseDecayed(hits, 0, 3).map((h) => h.id),
      best,
    );
    assert.deepEqual(
      collapseDecayed(hits, 0.5, 1).map((h) => h.id),
      best,
    );
  });

  it('adds what support says a next chunk is worth', () => {
    const out = collapseDecayed(hits, 0.5, 3, () => 0);
    assert.deepEqual(
      out.map((h) => h.id),
      ['a1', 'b1', 'c1'],
    );
  });
});
