import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childTrace, formatTraceparent, newRootTrace, parseTraceparent } from './trace-context.js';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

test('parses and formats a version-00 traceparent', () => {
  const ctx = parseTraceparent(VALID, 'rojo=00f067aa0ba902b7');
  assert.deepEqual(ctx, {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    flags: 1,
    traceState: 'rojo=00f067aa0ba902b7',
  });
  assert.equal(formatTraceparent(ctx!), VALID);
});

test('rejects invalid traceparents instead of throwing', () => {
  for (const bad of [
    undefined,
    '',
    'garbage',
    '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', // uppercase
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01', // zero trace id
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', // zero span id
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', // forbidden version
    `${VALID}-extra`, // version 00 has exactly four fields
    '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01', // short trace id
  ]) {
    assert.equal(parseTraceparent(bad), undefined, String(bad));
  }
});

test('tolerates future versions with extra fields', () => {
  const ctx = parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-what');
  assert.equal(ctx?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(ctx?.flags, 0);
});

test('child spans keep the trace id and flags but get a new span id', () => {
  const root = newRootTrace();
  assert.match(formatTraceparent(root), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const child = childTrace(root);
  assert.equal(child.traceId, root.traceId);
  assert.equal(child.flags, root.flags);
  assert.notEqual(child.spanId, root.spanId);
  assert.notEqual(newRootTrace().traceId, root.traceId);
});
