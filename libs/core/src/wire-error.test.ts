import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodesiftError } from './errors.js';
import { fromWire, toWire } from './wire-error.js';

test('an error keeps its code and hint, or its name, across a thread boundary', () => {
  const err = fromWire(
    toWire(new CodesiftError('MODEL_UNAVAILABLE', 'no model', { hint: 'rebuild it' })),
  );
  assert.ok(err instanceof CodesiftError);
  assert.equal(err.code, 'MODEL_UNAVAILABLE');
  assert.equal(err.hint, 'rebuild it');
  assert.equal(err.message, 'no model');
  const plain = fromWire(toWire(new TypeError('bad input')));
  assert.equal(plain.name, 'TypeError');
  assert.ok(!(plain instanceof CodesiftError));
});

test('what is thrown that is not an Error travels as its text', () => {
  const err = fromWire(toWire('a plain string'));
  assert.equal(err.message, 'a plain string');
  assert.equal(err.name, 'Error');
});
