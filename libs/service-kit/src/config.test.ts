import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { WORK_QUEUE_NAMES } from '@codesift/bus';
import { DEFAULT_NATS_URL, readServiceConfig, requireIndexPath } from './config.js';
import { withAckWait } from './run-stage.js';

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

test('CODESIFT_ACK_WAIT_MS sets every work queue, explicit per-queue policies still win', () => {
  assert.equal(readServiceConfig('x', {}).ackWaitMs, undefined);
  const c = readServiceConfig('x', { CODESIFT_ACK_WAIT_MS: '1500' });
  assert.equal(c.ackWaitMs, 1500);
  assert.throws(
    () => readServiceConfig('x', { CODESIFT_ACK_WAIT_MS: '-1' }),
    /CODESIFT_ACK_WAIT_MS must be a positive integer/,
  );
  assert.equal(withAckWait(undefined, undefined), undefined);
  const t = withAckWait({ policies: { files: { ackWaitMs: 9000, maxDeliver: 2 } } }, 1500);
  assert.deepEqual(t?.policies?.files, { ackWaitMs: 9000, maxDeliver: 2 });
  for (const q of WORK_QUEUE_NAMES.filter((n) => n !== 'files')) {
    assert.deepEqual(t?.policies?.[q], { ackWaitMs: 1500 }, q);
  }
});
