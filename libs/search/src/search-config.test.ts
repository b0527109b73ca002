import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { findConfigFile } from '@codesift/core';
import { DEFAULT_SYNONYMS } from '@codesift/query';
import { compileFilter } from './filters.js';
import { plannerConfigFrom, readSearchConfig, validateSearchConfig } from './search-config.js';

test('finds .codesift/config.json before .codesift.json, and reads its search section', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'codesift-config-'));
  try {
    assert.equal(findConfigFile(root), null);
    writeFileSync(path.join(root, '.codesift.json'), JSON.stringify({ search: { fusion: 'rrf' } }));
    assert.equal(findConfigFile(root), path.join(root, '.codesift.json'));
    mkdirSync(path.join(root, '.codesift'));
    const inner = path.join(root, '.codesift', 'config.json');
    writeFileSync(inner, JSON.stringify({ other: 1, search: { focusMultiplier: 0.25 } }));
    assert.equal(findConfigFile(root), inner);
    assert.deepEqual(readSearchConfig(inner), { focusMultiplier: 0.25 });
    writeFileSync(inner, '{ not json');
    assert.throws(() => readSearchConfig(inner), /cannot read/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('validates every key', () => {
  for (const bad of [
    { fusion: 'max' },
    { vectorWeight: 2 },
    { focusMultiplier: -1 },
    { synonyms: { a: 'b' } },
    { synonymsMode: 'merge' },
    { expansion: 'yes' },
    [],
  ]) {
    assert.throws(() => validateSearchConfig(bad, 'f.json'), /f\.json/, JSON.stringify(bad));
  }
  assert.deepEqual(validateSearchConfig({ anchors: false, fusion: 'adaptive' }, 'f'), {
    anchors: false,
    fusion: 'adaptive',
  });
});

test('planner config: defaults, then the file; synonyms extend or replace the defaults', () => {
  const d = plannerConfigFrom();
  assert.equal(d.fusion, 'linear');
  assert.equal(d.vectorWeight, 0.4);
  assert.equal(d.focusMultiplier, 0.5);
  assert.deepEqual([d.expansion, d.anchors, d.focusScoring], [true, true, true]);
  assert.equal(d.synonyms, DEFAULT_SYNONYMS);
  const ext = plannerConfigFrom({ synonyms: { search: ['grep'] }, expansion: false });
  assert.equal(ext.expansion, false);
  assert.deepEqual(ext.synonyms.search, [...DEFAULT_SYNONYMS.search!, 'grep']);
  const rep = plannerConfigFrom({
    synonyms: { search: ['grep'], function: [] },
    synonymsMode: 'replace',
  });
  assert.deepEqual(rep.synonyms.search, ['grep']);
  assert.equal(rep.synonyms.function, undefined);
});

test('a filter can drop languages (the query -lang:)', () => {
  const f = compileFilter({ excludeLanguages: ['go'] });
  assert.equal(f.lossy, true);
  assert.equal(f.accepts!('a/b.go'), false);
  assert.equal(f.accepts!('a/b.ts'), true);
});
