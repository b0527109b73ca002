import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SYNONYMS, parseQuery } from '@codesift/query';
import { FILE_COVERAGE_WEIGHT } from './coverage.js';
import { DEFAULT_PLANNER_CONFIG, planQuery } from './plan-query.js';
import type { PlanOptions } from './types.js';

const CONFIG = { ...DEFAULT_PLANNER_CONFIG, synonyms: DEFAULT_SYNONYMS };
const files = (q: string, o: PlanOptions = {}) =>
  planQuery(parseQuery(q), { vectorAvailable: false, collapseFiles: true, ...o }, CONFIG);

describe('planning word coverage', () => {
  it("gives a short prose query's files its own words, not synonyms or identifier parts", () => {
    const p = files('Merging dataArray into dataset raises an error');
    assert.deepEqual(p.files.coverage, {
      words: ['merging', 'dataarray', 'dataset', 'raises', 'error'],
      weight: FILE_COVERAGE_WEIGHT,
      definedNames: false,
    });
    assert.match(p.reasons.join('\n'), /files: .*share of merging, dataarray/);
    assert.match(p.reasons.join('\n'), /its name's twice/);
    const defined = files('Merging dataArray into dataset raises an error', { definedNames: true });
    assert.equal(defined.files.coverage?.definedNames, true);
    assert.match(
      defined.reasons.join('\n'),
      /its name's and its classes' and functions' names' twice/,
    );
  });

  it('is off for identifiers only, long reports, one word, chunk lists, decayed files and the switch', () => {
    const off = (p: ReturnType<typeof files>, why: RegExp) => {
      assert.equal(p.files.coverage, null);
      assert.match(p.reasons.join('\n'), why);
    };
    off(files('Blueprint.register'), /identifiers only/);
    off(
      files(`Blueprint names ${'with dots break the registration '.repeat(8)}`),
      /chars: a report/,
    );
    off(files('blueprint'), /fewer than two words/);
    off(files('blueprint name dot', { fileCoverage: false }), /word coverage off/);
    assert.equal(files('blueprint name dot', { fileScore: 'decayed' }).files.coverage, null);
    assert.equal(files('blueprint name dot', { collapseFiles: false }).files.coverage, null);
  });

  it("takes a long report's words from its first line, the title it is about", () => {
    const body = 'When the registration runs twice the server keeps the older route table. '.repeat(
      4,
    );
    const p = files(`Blueprint names with dots break routing\n\n${body}`);
    assert.deepEqual(p.files.coverage?.words, ['blueprint', 'names', 'dots', 'break', 'routing']);
    assert.match(p.reasons.join('\n'), /its first line/);
  });
});
