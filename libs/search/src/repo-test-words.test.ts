import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openLocalEngine } from './engine.js';
import { mentionsTestWord, ownTestWords, testWordStem } from './repo-test-words.js';
import { indexTree } from './test-support.js';

/** A test runner's layout: its package directory carries "test", its tests live apart. */
const RUNNER_PATHS = [
  ...['capture', 'fixtures', 'runner', 'skipping', 'terminal', 'main', 'nodes', 'python'].map(
    (m) => `src/_pytest/${m}.py`,
  ),
  'src/_pytest/unittest.py',
  'src/pytest/__init__.py',
  'testing/test_capture.py',
  'testing/test_unittest.py',
  'doc/en/how-to/unittest.rst',
];

/** An ordinary project with one testing helper module. */
const APP_PATHS = [
  ...['app', 'blueprints', 'cli', 'config', 'ctx', 'helpers', 'json', 'sessions', 'views'].map(
    (m) => `src/flask/${m}.py`,
  ),
  'src/flask/testing.py',
  'tests/test_basic.py',
  'tests/test_testing.py',
  'docs/testing.rst',
];

describe('the test words a repository uses for its own code', () => {
  it('stems test words the way their paths carry them', () => {
    assert.deepEqual(
      ['tests', 'tested', 'testing', 'fixtures', 'stubbed', 'mocking', 'assertions', 'e2e'].map(
        testWordStem,
      ),
      ['test', 'test', 'test', 'fixture', 'stub', 'mock', 'assertion', 'e2e'],
    );
  });

  it("a test runner's own: its package path carries test in most source files", () => {
    const own = ownTestWords(RUNNER_PATHS);
    for (const w of ['test', 'tests', 'tested', 'testing', 'pytest']) assert.ok(own.has(w), w);
    // One unittest.py module among ten is not the repository's vocabulary.
    assert.ok(!own.has('unittest'));
    assert.ok(!own.has('fixture'));
  });

  it('an ordinary project: tests, docs and one testing module leave every word a cue', () => {
    assert.deepEqual([...ownTestWords(APP_PATHS)], []);
  });

  it('too few source files tell nothing', () => {
    assert.deepEqual([...ownTestWords(RUNNER_PATHS.slice(0, 5))], []);
  });

  it('a query holds a test word only as a whole word', () => {
    assert.equal(mentionsTestWord('pytest --pdb skips tearDown'), true);
    assert.equal(mentionsTestWord('Mocked clock in the scheduler'), true);
    assert.equal(mentionsTestWord('the latest contest results'), false);
  });
});

// The same question over a test runner's tree and over an ordinary one: the
// runner's "tests" name its implementation, the project's ask for its tests.
const RUNNER_TREE: Record<string, string> = {
  'testing/test_skipping.py': `def test_teardown(pytester):
    """Skipped tests run no teardown under pdb."""
    pytester.runpytest("--pdb")
`,
  'src/_pytest/skipping.py': `def evaluate_skip_marks(item):
    """Decide whether skipped tests run their teardown under pdb."""
    return item.skip
`,
};
// A weak match, so that min-max fusion does not put the second file at zero.
RUNNER_TREE['src/_pytest/debugging.py'] = 'def enter_pdb(frame):\n    return frame\n';
for (const m of ['capture', 'fixtures', 'runner', 'terminal', 'main', 'nodes', 'python', 'mark']) {
  RUNNER_TREE[`src/_pytest/${m}.py`] = `def ${m}_hook(config):\n    return config.${m}\n`;
}
const ORDINARY_TREE = Object.fromEntries(
  Object.entries(RUNNER_TREE).map(([p, text]) => [p.replace('src/_pytest/', 'src/ledger/'), text]),
);
const QUESTION = 'skipped tests run teardown under pdb';

describe('focus with the repository own test words (engine)', () => {
  const made: { dir: string; indexPath: string }[] = [];
  before(async () => {
    made.push(await indexTree('codesift-own-words-', RUNNER_TREE));
    made.push(await indexTree('codesift-own-words-', ORDINARY_TREE));
  });
  after(() => {
    for (const m of made) rmSync(m.dir, { recursive: true, force: true });
  });

  it("a test runner's tree: the implementation first, the plan says why", async () => {
    const engine = await openLocalEngine({ indexPath: made[0]!.indexPath, embedder: null });
    try {
      const res = await engine.search({ query: QUESTION, keywordOnly: true, collapseFiles: true });
      assert.equal(res.plan!.focus.focus, 'implementation');
      assert.match(res.plan!.focus.reason, /"tests" names this repository's own code/);
      assert.equal(res.results[0]!.path, 'src/_pytest/skipping.py');
    } finally {
      await engine.close();
    }
  });

  it('an ordinary tree: the same words ask for tests', async () => {
    const engine = await openLocalEngine({ indexPath: made[1]!.indexPath, embedder: null });
    try {
      const res = await engine.search({ query: QUESTION, keywordOnly: true, collapseFiles: true });
      assert.equal(res.plan!.focus.focus, 'tests');
      assert.equal(res.results[0]!.path, 'testing/test_skipping.py');
    } finally {
      await engine.close();
    }
  });
});
