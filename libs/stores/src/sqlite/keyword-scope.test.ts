import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { prefixRange, scopeCondition } from './keyword-scope.js';

describe('prefixRange', () => {
  test('holds exactly the strings starting with the prefix, in byte order', () => {
    assert.deepEqual(prefixRange('mod3/'), ['mod3/', 'mod30']);
    assert.deepEqual(prefixRange('lib/m3'), ['lib/m3', 'lib/m4']);
    const [lo, hi] = prefixRange('a/b')!;
    const inRange = (s: string) =>
      Buffer.compare(Buffer.from(s), Buffer.from(lo)) >= 0 &&
      Buffer.compare(Buffer.from(s), Buffer.from(hi)) < 0;
    for (const s of ['a/b', 'a/b/c.ts', 'a/bz', 'a/b\u{10FFFF}x', 'a/b~', 'a/bé'])
      assert.ok(inRange(s), s);
    for (const s of ['a/a', 'a/', 'a/c', 'a/B', 'b', 'a/a\u{10FFFF}']) assert.ok(!inRange(s), s);
    // No range for '' (everything), nor past ASCII, where one higher may not be a character.
    assert.equal(prefixRange(''), null);
    assert.equal(prefixRange('dir~\u007f'), null);
    assert.equal(prefixRange('café'), null);
  });

  test('scopeCondition: every include prefix, or none when one has no range', () => {
    assert.deepEqual(scopeCondition({ pathPrefixes: ['a/', 'b/'] }), {
      where: '(path >= ? AND path < ?) OR (path >= ? AND path < ?)',
      params: ['a/', 'a0', 'b/', 'b0'],
    });
    assert.equal(scopeCondition({ pathPrefixes: ['a/', 'é'] }), null);
    assert.equal(scopeCondition({ languages: ['go'] }), null);
    assert.equal(scopeCondition(undefined), null);
  });
});
