import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_NATS_URL, readServiceConfig, requireIndexPath } from './config.js';

test('defaults point at a dev nats-server on this machine', () => {
  const c = readServiceConfig('chunker', {});
  assert.equal(c.natsUrl, DEFAULT_NATS_URL);
  assert.equal(c.indexPath, undefined);
  assert.equal(c.pullExpiresMs, 1000);
  assert.throws(() => requireIndexPath(c), /chunker needs CODESIFT_INDEX/);
});

test('reads NATS_URL and resolves CODESIFT_INDEX', () => {
  const c = readServiceConfig('writer', {
    NATS_URL: ' nats://n:4222 ',
    CODESIFT_INDEX: 'data/index.db',
    CODESIFT_PULL_EXPIRES_MS: '2500',
  });
  assert.equal(c.natsUrl, 'nats://n:4222');
  assert.equal(c.indexPath, path.resolve('data/index.db'));
  assert.equal(requireIndexPath(c), path.resolve('data/index.db'));
  assert.equal(c.pullExpiresMs, 2500);
});

test('rejects a malformed number instead of guessing', () => {
  assert.throws(
    () => readServiceConfig('x', { CODESIFT_CONNECT_ATTEMPTS: 'many' }),
    /CODESIFT_CONNECT_ATTEMPTS must be a positive integer/,
  );
});
