import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SYNONYMS, parseQuery } from '@codesift/query';
import {
  CHANGELOG_MULTIPLIER,
  inDocTree,
  isChangelogPath,
  isDeclarationPath,
  isVendoredCopy,
} from './documentation.js';
import { focusMultiplier, planFocus } from './focus.js';
import { DEFAULT_PLANNER_CONFIG, NO_PLANNING, planQuery } from './plan-query.js';
import { rescore } from './rescore.js';
import type { PlanOptions } from './types.js';

const SETTINGS = { scoring: true, multiplier: 0.5, reports: true, docMultiplier: 0.7 };
const CONFIG = { ...DEFAULT_PLANNER_CONFIG, synonyms: DEFAULT_SYNONYMS };
const planFor = (q: string, o: PlanOptions = {}) => planQuery(parseQuery(q), o, CONFIG);
const focusFor = (q: string) => planFocus(parseQuery(q), undefined, SETTINGS);

function assertSplits(is: (path: string) => boolean, yes: string[], no: string[]): void {
  for (const p of yes) assert.ok(is(p), p);
  for (const p of no) assert.ok(!is(p), p);
}

describe('changelogs and documentation trees', () => {
  it('recognises changelogs by name, in the formats they are written in', () => {
    assertSplits(
      isChangelogPath,
      [
        'CHANGELOG.md',
        'History.md',
        'CHANGES.rst',
        'NEWS',
        'doc/whats-new.rst',
        'packages/core/changelog.txt',
        'RELEASE_NOTES.md',
        // An extension no language claims: an archived changelog, a rarer Markdown spelling.
        'CHANGES.old',
        'CHANGELOG.mdown',
      ],
      // Code (or data) about history or changes is code.
      [
        'lib/history.js',
        'src/changes.py',
        'CHANGELOG.go',
        'docs/guide.md',
        'include/changes.h',
        'releases.json',
      ],
    );
  });

  it('recognises documentation and example trees at any depth', () => {
    assertSplits(
      inDocTree,
      [
        'docs/conf.py',
        'doc/_docstrings/plot.ipynb',
        'examples/upload/app.js',
        '_examples/rest/main.go',
        'packages/ui/demo/index.ts',
      ],
      ['src/docstring.py', 'lib/example_parser.rb', 'mux.go', 'src/sample.ts'],
    );
  });

  it('recognises vendored copies of other projects by their version or minified name', () => {
    assertSplits(
      isVendoredCopy,
      [
        'sphinx/themes/basic/static/jquery-3.5.1.js',
        'static/underscore-1.13.1.min.js',
        'web/app.min.js',
        'css/bootstrap-4.0.0.min.css',
      ],
      ['src/app.js', 'lib/v2/client.py', 'migrations/0001_initial.py', 'src/utf8.rs', 'jquery.js'],
    );
    const f = focusFor('automodule fails if path contains certain names');
    assert.equal(focusMultiplier(f, 'sphinx/themes/basic/static/underscore-1.13.1.js'), 0.5);
    assert.equal(focusMultiplier(f, 'sphinx/ext/autodoc/__init__.py'), 1);
  });

  it('an implementation question demotes changelogs and the trees, each once', () => {
    const f = focusFor('cascade the not found handler through mounted routers');
    assert.equal(f.changelogMultiplier, CHANGELOG_MULTIPLIER);
    assert.equal(f.docTreeMultiplier, 0.5, 'the out-of-focus multiplier, as for tests');
    assert.equal(
      focusMultiplier(f, 'CHANGELOG.md'),
      CHANGELOG_MULTIPLIER,
      'not also x0.7 as prose',
    );
    assert.equal(focusMultiplier(f, '_examples/rest/main.go'), 0.5);
    assert.equal(focusMultiplier(f, 'docs/guide.html'), 0.5);
    assert.equal(focusMultiplier(f, 'docs/guide.md'), 0.7, 'prose in a tree is prose, once');
    assert.equal(focusMultiplier(f, 'mux.go'), 1);
    assert.equal(focusMultiplier(f, 'examples/app_test.go'), 0.25, 'a test of an example: both');
  });

  it('a question naming a changelog, docs or examples keeps them', () => {
    const named = focusFor('add the 2.1 entry to the changelog');
    assert.equal(named.changelogMultiplier, 1);
    assert.match(named.reason, /names a changelog \("changelog"\)/);
    assert.equal(focusFor('typo in CHANGES.rst').changelogMultiplier, 1);
    assert.equal(
      focusFor('minor changes to the history view').changelogMultiplier,
      CHANGELOG_MULTIPLIER,
    );

    const example = focusFor('make the upload example more readable');
    assert.equal(example.docTreeMultiplier, 1);
    assert.equal(example.docMultiplier, 0.7, 'asking for examples is not asking for prose');
    assert.match(example.reason, /asks for examples \("example"\)/);
    assert.equal(focusMultiplier(example, 'examples/upload/app.js'), 1);

    assert.equal(focusFor('the documentation build warns about conf').docTreeMultiplier, 1);
  });

  it('demotes TypeScript declaration files for implementation questions, not for questions about types', () => {
    assertSplits(
      isDeclarationPath,
      ['index.d.ts', 'types/request.d.ts', 'index.d.cts', 'lib/types.d.mts', 'TYPES/X.D.TS'],
      ['index.ts', 'lib/request.js', 'src/d.ts.js', 'docs/d.ts.md', 'types/request.ts'],
    );
    const f = focusFor('timeout error message is ignored by the http adapter');
    assert.equal(f.declarationMultiplier, 0.5, 'the out-of-focus multiplier, as for example code');
    assert.equal(focusMultiplier(f, 'index.d.ts'), 0.5);
    assert.equal(focusMultiplier(f, 'types/request.d.cts'), 0.5);
    assert.equal(focusMultiplier(f, 'lib/adapters/http.js'), 1);
    assert.equal(focusMultiplier(f, 'src/index.ts'), 1, 'TypeScript sources are code');
    for (const q of [
      'TypeScript error: property timeout is missing',
      'wrong typings for the request config',
      'index.d.ts does not export AxiosError',
    ]) {
      const asks = focusFor(q);
      assert.equal(asks.declarationMultiplier, 1, q);
      assert.match(asks.reason, /asks about types/, q);
    }
    // Asking for docs keeps every kind of documentation, declarations included.
    assert.equal(focusFor('the docs for timeout are wrong').declarationMultiplier, 1);
    // A test question demotes no documentation.
    assert.equal(focusFor('add a test for the timeout message').declarationMultiplier, 1);
  });

  it("a report's body does not ask for examples, its lead line does", () => {
    const body = `${'Legends lose the offset of large values. '.repeat(12)}\nAn example:\n\nplot(x)\n`;
    const report = focusFor(`Wrong legend values of large ranges\n${body}`);
    assert.equal(report.docTreeMultiplier, 0.5);
    assert.equal(focusFor(`Example plot shows wrong legend values\n${body}`).docTreeMultiplier, 1);
    // Off with report focus: the body counts, as before.
    const reading = planFocus(parseQuery(`Wrong legend values\n${body}`), undefined, {
      ...SETTINGS,
      reports: false,
    });
    assert.equal(reading.docTreeMultiplier, 1);
  });

  it("a report's body does not ask for docs, its lead line does", () => {
    const body = `${'Building fails on nested tables. '.repeat(14)}\nThe docs say this works.\n`;
    assert.equal(focusFor(`Nested tables break the build\n${body}`).docMultiplier, 0.7);
    assert.equal(focusFor(`The docs of nested tables are wrong\n${body}`).docMultiplier, 1);
    const reading = planFocus(parseQuery(`Nested tables break the build\n${body}`), undefined, {
      ...SETTINGS,
      reports: false,
    });
    assert.equal(reading.docMultiplier, 1);
  });

  it('a question about tests leaves the trees alone but still demotes changelogs', () => {
    const f = focusFor('the router tests fail on mounted paths');
    assert.equal(f.focus, 'tests');
    assert.equal(f.docTreeMultiplier, 1);
    assert.equal(f.changelogMultiplier, CHANGELOG_MULTIPLIER);
  });

  it('is off with doc demotion and without planning, and the plan says why', () => {
    const on = planFor('cascade the not found handler');
    assert.match(on.reasons.join('\n'), /changelogs x 0\.2/);
    assert.match(on.reasons.join('\n'), /code in doc and example trees x 0\.5/);
    for (const off of [
      planFor('cascade the not found handler', { docDemotion: false }),
      planFor('cascade', NO_PLANNING),
    ]) {
      assert.equal(off.focus.changelogMultiplier, 1);
      assert.equal(off.focus.docTreeMultiplier, 1);
      assert.doesNotMatch(off.reasons.join('\n'), /changelogs x|doc and example trees x/);
    }
  });

  it('the source file passes a changelog and an example that out-score it on keywords', () => {
    const plan = planFor('cascade the not found handler through mounted routers');
    const candidates = [
      { id: 'log', path: 'CHANGELOG.md', fused: 1 },
      { id: 'ex', path: '_examples/rest/main.go', fused: 0.9 },
      { id: 'src', path: 'mux.go', fused: 0.5 },
    ];
    const out = rescore({ plan, candidates, definitions: new Set(), contents: new Map() });
    assert.deepEqual(
      out.map((r) => [r.id, r.focusMultiplier]),
      [
        ['src', 1],
        ['ex', 0.5],
        ['log', CHANGELOG_MULTIPLIER],
      ],
    );
  });
});
