import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONTRAST_RANK,
  contrastShare,
  listContrast,
  MIN_CONTRAST_SHARE,
} from './vector-contrast.js';

describe('vector contrast', () => {
  it('is the top similarity minus the one at rank 10, or the last of a shorter list', () => {
    const scores = Array.from({ length: 30 }, (_, i) => 0.7 - i * 0.005);
    assert.equal(CONTRAST_RANK, 10);
    assert.equal(Math.round(listContrast(scores)! * 1e6) / 1e6, 0.045);
    assert.equal(Math.round(listContrast([0.7, 0.6, 0.55])! * 1e6) / 1e6, 0.15);
    assert.equal(listContrast([0.7]), null);
    assert.equal(listContrast([]), null);
  });

  it("keeps the weight in proportion to the noise's contrast, between the minimum share and 1", () => {
    assert.equal(MIN_CONTRAST_SHARE, 0.75);
    assert.equal(contrastShare(0.02, 0.04, 0.2), 0.5);
    assert.equal(Math.round(contrastShare(0.035, 0.04) * 1e6) / 1e6, 0.875);
    assert.equal(contrastShare(0.08, 0.04), 1);
    // As flat as noise or flatter: never below the minimum share.
    assert.equal(contrastShare(0.02, 0.04), MIN_CONTRAST_SHARE);
    assert.equal(contrastShare(0, 0.04), MIN_CONTRAST_SHARE);
    assert.equal(contrastShare(0.01, 0.04, 0.2), 0.25);
    assert.equal(contrastShare(0, 0.04, 0.2), 0.2);
  });

  it('leaves the weight whole when there is nothing to compare', () => {
    assert.equal(contrastShare(null, 0.04), 1);
    assert.equal(contrastShare(0.01, null), 1);
    assert.equal(contrastShare(0.01, 0), 1);
  });
});
