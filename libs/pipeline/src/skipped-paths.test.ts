import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SKIPPED_PATHS_PER_REASON, SkippedPaths } from './skipped-paths.js';

test('skipped paths: by reason, capped per reason, sorted, plain ignored ones left out', () => {
  const scanned = Array.from({ length: 50 }, (_, i) => ({
    path: `assets/img${String(i).padStart(2, '0')}.png`,
    reason: 'binary' as const,
  }));
  const paths = new SkippedPaths([...scanned, { path: 'node_modules', reason: 'ignored' }]);
  paths.add('b.key', 'secret');
  paths.add('a.env', 'secret');
  paths.add('a.env', 'secret');
  const out = paths.toJSON();
  assert.deepEqual(Object.keys(out), ['binary', 'secret']);
  assert.equal(out.binary?.length, SKIPPED_PATHS_PER_REASON);
  assert.equal(out.binary?.[0], 'assets/img00.png');
  assert.deepEqual(out.secret, ['a.env', 'b.key']);
  assert.deepEqual(new SkippedPaths().toJSON(), {});
});
