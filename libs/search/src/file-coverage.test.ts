import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SYNONYMS, parseQuery } from '@codesift/query';
import { collapseByCoverage, wordMatcher } from './file-coverage.js';
import { DEFAULT_PLANNER_CONFIG, planQuery } from './planning/plan-query.js';
import type { PlanOptions } from './planning/types.js';
import { type BoostEvidence, fuseSides, rank } from './ranking.js';

const item = (id: string, path: string, score: number, focusMultiplier = 1) => ({
  id,
  path,
  score,
  focusMultiplier,
});

describe('wordMatcher', () => {
  const held = (word: string, text: string) => wordMatcher(word).test(text);

  it('finds a word as a whole word of code or prose, in any case or inflection', () => {
    assert.ok(held('blueprint', 'class Blueprint(Scaffold):'));
    assert.ok(held('blueprints', 'self.blueprint_name'));
    assert.ok(held('subset', 'def isSubset(other)'));
    assert.ok(held('merging', 'def merge(self, other)'));
    assert.ok(held('merging', 'merged = True'));
    assert.ok(held('throttled', 'func Throttle(limit int)'));
    assert.ok(held('mod', 'class Mod(Function):'));
    assert.ok(held('mod', 'src/core/mod.py'));
    assert.ok(held('overlapping', 'function overlap(a, b)'));
    assert.ok(held('getting', 'getUser()'));
    assert.ok(held('dependencies', 'resolveDependency(dep)'));
    assert.ok(held('dependency', 'dependencies = []'));
    assert.ok(held('mod', 'modSwitch'));
    assert.ok(held('mod', 'x mod y'));
  });

  it('does not find it inside another word', () => {
    assert.ok(!held('mod', 'import module'));
    assert.ok(!held('mod', 'the mode'));
    assert.ok(!held('dot', 'an anecdote'));
    assert.ok(!held('subset', 'def issubset(other)'));
    assert.ok(!held('set', 'reset()'));
    assert.ok(!held('calling', 'cal = 1'));
    assert.ok(!held('unset', 'if value is UNSET:'));
  });
});

describe('collapseByCoverage', () => {
  const words = ['blueprint', 'name', 'dot'];

  it('lifts the file holding the rare words over several chunks and its path past a slightly better single chunk', () => {
    const ranked = [
      item('h1', 'src/helpers.py', 0.9),
      item('b1', 'src/blueprints.py', 0.8),
      item('b2', 'src/blueprints.py', 0.3),
      item('g1', 'src/globals.py', 0.5),
    ];
    const contents = new Map([
      ['h1', 'def url_for(name): return name + name'],
      ['b1', 'def add_url_rule(self, name): ...'],
      ['b2', 'if "." in endpoint: raise ValueError("no dot")'],
      ['g1', 'name = None'],
    ]);
    const out = collapseByCoverage(ranked, contents, { words, weight: 0.3 });
    assert.deepEqual(
      out.map((r) => r.path),
      ['src/blueprints.py', 'src/helpers.py', 'src/globals.py'],
    );
    // Each file keeps its best chunk; `name`, held by every file, weighs least.
    assert.equal(out[0]!.id, 'b1');
    // At most twice the weight: every word held, and named by the file.
    assert.ok(out[0]!.score > 0.8 && out[0]!.score <= 0.8 + 2 * 0.3);
    // Without coverage the best chunk alone decides.
    const none = collapseByCoverage(ranked, contents, { words, weight: 0 });
    assert.deepEqual(
      none.map((r) => r.path),
      ['src/helpers.py', 'src/blueprints.py', 'src/globals.py'],
    );
  });

  it("counts a word the file's name holds twice, a directory's once", () => {
    const ranked = [
      item('d1', 'src/printing/latex.py', 0.5),
      item('n1', 'src/mathml.py', 0.5),
      item('x1', 'src/other.py', 0.5),
    ];
    const contents = new Map([
      ['d1', 'mathml'],
      ['n1', 'printing'],
      ['x1', 'neither'],
    ]);
    const out = collapseByCoverage(ranked, contents, {
      words: ['mathml', 'printing'],
      weight: 0.3,
    });
    // Both files hold both words (text and path); only mathml.py is named by one.
    assert.deepEqual(
      out.map((r) => r.path),
      ['src/mathml.py', 'src/printing/latex.py', 'src/other.py'],
    );
  });

  it('counts a word once per file however often the file repeats it', () => {
    const ranked = [item('a1', 'a.py', 0.5), item('a2', 'a.py', 0.4), item('c1', 'c.py', 0.5)];
    const contents = new Map([
      ['a1', 'name name name'],
      ['a2', 'name'],
      ['c1', 'name dot'],
    ]);
    const out = collapseByCoverage(ranked, contents, { words, weight: 0.3 });
    assert.deepEqual(
      out.map((r) => r.path),
      ['c.py', 'a.py'],
    );
  });

  it('gives a test file (in focus or not) and a file out of focus no coverage', () => {
    // Each covers the one word that tells the files apart: with any share of the
    // bonus (0.5 + 0.15 even at x0.5) it would pass the source file.
    for (const other of [
      item('t1', 'tests/test_blueprints.py', 0.5),
      item('t1', 'docs/blueprints.rst', 0.5, 0.5),
    ]) {
      const contents = new Map([
        ['t1', 'blueprint name dot'],
        ['s1', 'blueprint name'],
      ]);
      const out = collapseByCoverage([other, item('s1', 'src/app.py', 0.55)], contents, {
        words,
        weight: 0.3,
      });
      assert.deepEqual(
        out.map((r) => [r.path, r.score]),
        [
          ['src/app.py', 0.55],
          [other.path, 0.5],
        ],
      );
    }
  });
});

describe('rank with word coverage', () => {
  const config = { ...DEFAULT_PLANNER_CONFIG, synonyms: DEFAULT_SYNONYMS };
  const kw = (id: string, path: string, score: number) => ({
    id,
    path,
    startLine: 1,
    endLine: 10,
    symbol: null as string | null,
    kind: 'function',
    language: 'python',
    score,
  });
  const hits = [
    kw('h1', 'src/helpers.py', 10),
    kw('b1', 'src/blueprints.py', 9),
    kw('x1', 'src/other.py', 1),
  ];
  /** What the boosts read: no definitions, these candidates' contents. */
  const evidenceOf = (contents: [string, string][]): BoostEvidence => ({
    definitions: new Set(),
    contents: new Map(contents),
  });
  const evidence = evidenceOf([
    ['h1', 'raise error'],
    ['b1', 'raise error'],
  ]);

  /** The file list of a short query over the hits, with these planner options. */
  const filesFor = (
    query: string,
    keyword: ReturnType<typeof kw>[],
    found: BoostEvidence,
    options: PlanOptions,
  ) => {
    const plan = planQuery(
      parseQuery(query),
      { vectorAvailable: false, collapseFiles: true, ...options },
      config,
    );
    return {
      plan,
      paths: rank(plan, fuseSides(plan, { keyword, vector: null }), found).map((r) => r.path),
    };
  };

  it('ranks files by coverage for a short query, by the best chunk with the switch off', () => {
    const run = (fileCoverage: boolean) =>
      filesFor('blueprint raise error', hits, evidence, { fileCoverage }).paths;
    assert.deepEqual(run(true), ['src/blueprints.py', 'src/helpers.py', 'src/other.py']);
    assert.deepEqual(run(false), ['src/helpers.py', 'src/blueprints.py', 'src/other.py']);
  });

  it("counts a word one of the file's definitions is named twice, with definedNames on", () => {
    const defined = [
      { ...kw('i1', 'src/integrals.py', 10), symbol: 'Integral.transform' },
      { ...kw('s1', 'src/simplify.py', 9), symbol: 'posify' },
      kw('x1', 'src/other.py', 1),
    ];
    const found = evidenceOf([
      ['i1', 'posify(expr) keeps the assumptions'],
      ['s1', 'def posify(eq): replaces the assumptions'],
    ]);
    const run = (definedNames: boolean) => {
      const { plan, paths } = filesFor('Posify ignores assumptions', defined, found, {
        definedNames,
      });
      assert.equal(plan.files.coverage?.definedNames, definedNames);
      return paths;
    };
    assert.deepEqual(run(true), ['src/simplify.py', 'src/integrals.py', 'src/other.py']);
    assert.deepEqual(run(false), ['src/integrals.py', 'src/simplify.py', 'src/other.py']);
  });
});
