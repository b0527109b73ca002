import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { secretPolicyFor } from './secret-policy.js';
import { makeTree } from './testing/make-tree.js';

test('the policy comes from "secrets" in the config file, redact by default', (t) => {
  assert.equal(secretPolicyFor(makeTree(t, { 'a.ts': '' })), 'redact');
  assert.equal(secretPolicyFor(makeTree(t, { '.codesift.json': '{"search": {}}' })), 'redact');
  assert.equal(secretPolicyFor(makeTree(t, { '.codesift.json': '{"secrets": "skip"}' })), 'skip');
  assert.equal(
    secretPolicyFor(makeTree(t, { '.codesift/config.json': '{"secrets": "redact"}' })),
    'redact',
  );
});

test('a wrong value is an error naming the file and the choices', (t) => {
  const root = makeTree(t, { '.codesift.json': '{"secrets": "ignore"}' });
  assert.throws(
    () => secretPolicyFor(root),
    (err: unknown) =>
      err instanceof CodesiftError &&
      err.code === 'INVALID_ARGUMENT' &&
      err.message.includes('.codesift.json') &&
      /"secrets" must be "redact" or "skip", got "ignore"/.test(err.message),
  );
});
