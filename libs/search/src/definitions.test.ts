import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { holdsDefinition, queryIdentifiers } from './definitions.js';

describe('queryIdentifiers', () => {
  it('takes a single-word query as an identifier', () => {
    assert.deepEqual(queryIdentifiers('Graph'), ['Graph']);
    assert.deepEqual(queryIdentifiers('  addEdge '), ['addEdge']);
  });
  it('keeps code-shaped words of a longer query and skips prose', () => {
    assert.deepEqual(queryIdentifiers('where does addEdge call parse_amount in Graph.size'), [
      'addEdge',
      'parse_amount',
      'Graph.size',
    ]);
    assert.deepEqual(queryIdentifiers('how are edges inserted into the graph'), []);
    assert.deepEqual(queryIdentifiers('use std::vec::Vec here'), ['std::vec::Vec']);
  });
  it('dedupes case-insensitively and caps the count', () => {
    assert.deepEqual(queryIdentifiers('fooBar FooBar fooBar'), ['fooBar']);
    const many = Array.from({ length: 50 }, (_, i) => `name_${i}`).join(' ');
    assert.equal(queryIdentifiers(many).length, 8);
  });
});

describe('holdsDefinition', () => {
  it('matches a chunk whose range holds the definition’s first line in the same file', () => {
    const defs = [{ path: 'a.ts', startLine: 12 }];
    assert.equal(holdsDefinition({ path: 'a.ts', startLine: 1, endLine: 22 }, defs), true);
    assert.equal(holdsDefinition({ path: 'a.ts', startLine: 12, endLine: 12 }, defs), true);
    assert.equal(holdsDefinition({ path: 'a.ts', startLine: 13, endLine: 30 }, defs), false);
    assert.equal(holdsDefinition({ path: 'b.ts', startLine: 1, endLine: 22 }, defs), false);
  });
});
