import assert from 'node:assert/strict';
import { test } from 'node:test';
import { main } from './main.js';

test('a bad command line exits 2 without touching NATS', async () => {
  assert.equal(await main([]), 2);
  assert.equal(await main(['scanner-typo']), 2);
  assert.equal(await main(['chunker', 'extra']), 2);
});
