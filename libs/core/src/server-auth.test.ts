import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isCodesiftError } from './errors.js';
import {
  bearerMatches,
  envFlag,
  isLoopbackHost,
  resolveServerAuth,
  weakTokenWarning,
} from './server-auth.js';

const resolveHttpAuth = (o: { token: string | undefined; insecureNoAuth: boolean; host: string }) =>
  resolveServerAuth({ ...o, server: 'the test server' });

describe('bearer token auth', () => {
  const token = 'a'.repeat(8) + 'b'.repeat(24);

  test('matches only the exact token in a Bearer header', () => {
    assert.equal(bearerMatches(`Bearer ${token}`, token), true);
    assert.equal(bearerMatches(`bearer ${token}`, token), true, 'the scheme is case-insensitive');
    assert.equal(bearerMatches(`Bearer  ${token} `, token), true);
    assert.equal(bearerMatches(undefined, token), false);
    assert.equal(bearerMatches('', token), false);
    assert.equal(bearerMatches(token, token), false, 'the scheme is required');
    assert.equal(bearerMatches(`Basic ${token}`, token), false);
    assert.equal(bearerMatches(`Bearer ${token}x`, token), false);
    assert.equal(bearerMatches(`Bearer ${token.slice(0, -1)}`, token), false);
    assert.equal(bearerMatches(`Bearer ${token.toUpperCase()}`, token), false);
    assert.equal(bearerMatches(`Bearer ${token} extra`, token), false);
    assert.equal(bearerMatches('Bearer ', token), false);
  });

  test('loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]']) {
      assert.equal(isLoopbackHost(h), true, h);
    }
    for (const h of [
      '0.0.0.0',
      '::',
      '192.168.1.2',
      'example.com',
      'localhost.evil.com',
      '1127.0.0.1',
    ]) {
      assert.equal(isLoopbackHost(h), false, h);
    }
  });

  test('a server needs a token unless --insecure-no-auth on loopback', () => {
    assert.equal(
      resolveHttpAuth({ token: ' secret ', insecureNoAuth: false, host: '0.0.0.0' }),
      'secret',
    );
    assert.equal(
      resolveHttpAuth({ token: 'secret', insecureNoAuth: true, host: '0.0.0.0' }),
      'secret',
    );
    assert.equal(
      resolveHttpAuth({ token: undefined, insecureNoAuth: true, host: '127.0.0.1' }),
      null,
    );
    for (const opts of [
      { token: undefined, insecureNoAuth: false, host: '127.0.0.1' },
      { token: '  ', insecureNoAuth: false, host: '127.0.0.1' },
      { token: undefined, insecureNoAuth: true, host: '0.0.0.0' },
    ]) {
      assert.throws(
        () => resolveHttpAuth(opts),
        (e) => isCodesiftError(e) && e.code === 'INVALID_ARGUMENT' && !!e.hint,
        JSON.stringify(opts),
      );
    }
  });

  test('the refusal names the server and both ways out', () => {
    assert.throws(
      () => resolveHttpAuth({ token: undefined, insecureNoAuth: false, host: '127.0.0.1' }),
      (e) =>
        isCodesiftError(e) &&
        /the test server needs a bearer token/.test(e.message) &&
        /CODESIFT_TOKEN/.test(e.hint ?? '') &&
        /--insecure-no-auth/.test(e.hint ?? ''),
    );
  });

  test('environment flags', () => {
    for (const v of ['1', 'true', 'YES', ' on ']) assert.equal(envFlag(v), true, v);
    for (const v of [undefined, '', '0', 'false', 'no', 'off']) assert.equal(envFlag(v), false, v);
  });

  test('short tokens get a warning', () => {
    assert.match(weakTokenWarning('short') ?? '', /only 5 characters/);
    assert.equal(weakTokenWarning(token), null);
    assert.equal(weakTokenWarning(null), null);
  });
});
