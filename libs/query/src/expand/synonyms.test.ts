import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze } from '@codesift/analysis';
import { DEFAULT_SYNONYMS } from './default-synonyms.js';
import { NON_EXPANDABLE } from './expand.js';
import { mergeSynonymTables } from './synonyms.js';

test('the default table is well-formed data', () => {
  const keys = Object.keys(DEFAULT_SYNONYMS);
  assert.ok(keys.length >= 60 && keys.length <= 120, String(keys.length));
  for (const k of keys) {
    // Keys are looked up by their analyzed form, so they must already be in it.
    assert.deepEqual(analyze(k), [k], k);
    assert.equal(NON_EXPANDABLE.has(k), false, `${k} is never expanded`);
    const values = DEFAULT_SYNONYMS[k]!;
    assert.ok(values.length > 0, k);
    assert.equal(new Set(values).size, values.length, `${k} has duplicates`);
    for (const v of values) {
      assert.notEqual(v, k);
      // Each value is one index term (no parts that would count at full synonym weight).
      assert.equal(analyze(v).length, 1, `${k} -> ${v}`);
    }
  }
  assert.ok(Object.isFrozen(DEFAULT_SYNONYMS));
});

test('mergeSynonymTables extends, replaces and removes', () => {
  const base = { search: ['find', 'query'], delete: ['remove'] };
  assert.deepEqual(mergeSynonymTables(base, { Search: ['Engine', 'find'], graph: ['dag'] }), {
    search: ['find', 'query', 'engine'],
    delete: ['remove'],
    graph: ['dag'],
  });
  assert.deepEqual(mergeSynonymTables(base, { search: ['engine'] }, 'replace'), {
    search: ['engine'],
    delete: ['remove'],
  });
  // An empty list switches a default expansion off.
  assert.deepEqual(mergeSynonymTables(base, { delete: [] }), { search: ['find', 'query'] });
  // A value equal to its key is dropped; the inputs are not modified.
  assert.deepEqual(mergeSynonymTables({}, { fn: ['fn', 'func'] }), { fn: ['func'] });
  assert.deepEqual(base, { search: ['find', 'query'], delete: ['remove'] });
  assert.deepEqual(mergeSynonymTables(DEFAULT_SYNONYMS), { ...DEFAULT_SYNONYMS });
});
