import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addDefinedWords } from './defined-names.js';

describe('addDefinedWords', () => {
  const words = ['posify', 'rational', 'use', 'renderers', 'zero', 'features', 'testing'];
  const named = (symbol: string | null, kind: string) => {
    const out = new Set<number>();
    addDefinedWords(out, { symbol, kind }, words);
    return [...out].map((i) => words[i]);
  };

  it('a function or a class named by one query word, or the class a method belongs to', () => {
    assert.deepEqual(named('posify', 'function'), ['posify']);
    assert.deepEqual(named('_posify', 'function'), ['posify']);
    assert.deepEqual(named('Rational', 'class'), ['rational']);
    assert.deepEqual(named('Rational.__new__', 'method'), ['rational']);
    assert.deepEqual(named('numbers::Rational', 'struct'), ['rational']);
  });

  it("not a method's own name, an inflection, a name of several words, a section or a test", () => {
    assert.deepEqual(named('Mux.Use', 'method'), []);
    assert.deepEqual(named('Renderer', 'interface'), [], '"renderers" speaks of many');
    assert.deepEqual(named('is_zero', 'function'), []);
    assert.deepEqual(named('__add__', 'function'), []);
    assert.deepEqual(named('README > Features', 'section'), []);
    assert.deepEqual(named('Features', 'section'), []);
    assert.deepEqual(named('Testing', 'class'), []);
    assert.deepEqual(named(null, 'block'), []);
  });
});
