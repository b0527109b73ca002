import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collapseByPath } from './collapse.js';

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
