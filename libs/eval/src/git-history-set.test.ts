import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildGitHistorySet, parseHunks, repoNameFromMirror } from './git-history-set.js';
import { parseQuerySet } from './query-set.js';

const numbered = (name: string, n: number) =>
  `${Array.from({ length: n }, (_, i) => `int ${name}_${i + 1} = ${i + 1};`).join('\n')}\n`;

describe('query sets from git history', () => {
  let work: string;
  let repoDir: string;
  const sha: Record<string, string> = {};
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repoDir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Dev',
        GIT_AUTHOR_EMAIL: 'dev@example.com',
        GIT_COMMITTER_NAME: 'Dev',
        GIT_COMMITTER_EMAIL: 'dev@example.com',
      },
    }).trim();
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(repoDir, rel)), { recursive: true });
    writeFileSync(path.join(repoDir, rel), text);
  };
  const read = (rel: string) => readFileSync(path.join(repoDir, rel), 'utf8');
  const commit = (key: string, message: string) => {
    git('add', '-A');
    git('commit', '-q', '-m', message);
    sha[key] = git('rev-parse', 'HEAD');
  };
  /** Replaces 1-based line `n` of a file. */
  const editLine = (rel: string, n: number, text: string) => {
    const lines = read(rel).split('\n');
    lines[n - 1] = text;
    write(rel, lines.join('\n'));
  };

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-githistory-'));
    repoDir = path.join(work, 'acme+graphs', 'repo');
    mkdirSync(repoDir, { recursive: true });
    git('init', '-q', '-b', 'main');
    write('src/graph.c', numbered('g', 20));
    write('src/nodes.c', numbered('n', 20));
    write('tests/test_graph.c', numbered('t', 5));
    write('README.md', '# graphs\n');
    commit('root', 'Initial import of the graph library');

    editLine('src/graph.c', 5, 'int g_5 = -1;');
    editLine('src/graph.c', 6, 'int g_6 = -1;');
    editLine('tests/test_graph.c', 2, 'int t_2 = 0;');
    commit(
      'fix',
      'Fix edge removal when the graph is empty\n\nThe removal walked past the end.\n\nSigned-off-by: Dev <dev@example.com>',
    );

    write('README.md', '# graphs\n\nInstall with make.\n');
    commit('docs', 'Explain the install steps for new users');

    write('src/graph.c', read('src/graph.c').replace('int g_7 = 7;', 'int  g_7  =  7;'));
    commit('format', 'Reformat the graph module in the new house style');

    editLine('src/graph.c', 8, 'int g_8 = 80;');
    commit('bump', 'Bump libedge from 1.0.0 to 1.0.1');

    editLine('src/graph.c', 9, 'int g_9 = 90;');
    commit('short', 'fix');

    write('src/parser.c', numbered('p', 3));
    commit('new', 'Add a brand new parser module for config files');

    for (let i = 0; i < 12; i++) write(`src/gen/f${i}.c`, numbered(`f${i}`, 2));
    commit('mass-new', 'Generate twelve table files for the lookup code');
    for (let i = 0; i < 12; i++) editLine(`src/gen/f${i}.c`, 1, `int f${i}_1 = 0;`);
    commit('mass', 'Reset every generated table to zero at start');

    const lines = read('src/graph.c').split('\n');
    lines.splice(10, 0, 'int count_nodes(void);');
    write('src/graph.c', lines.join('\n'));
    commit('insert', 'Add a helper that counts the nodes in a graph');

    editLine('tests/test_graph.c', 3, 'int t_3 = 0;');
    commit('tests', 'Cover the empty graph case in the tests');

    git('checkout', '-q', '-b', 'side');
    editLine('src/nodes.c', 4, 'int n_4 = 40;');
    commit('side', 'Keep node ids stable across graph copies');
    git('checkout', '-q', 'main');
    git('merge', '-q', '--no-ff', '-m', 'Merge the stable node ids branch into main', 'side');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('keeps commits whose message describes a source change, with parent-side line answers', () => {
    const set = buildGitHistorySet({ gitDir: path.join(repoDir, '.git'), repo: 'acme/graphs' });
    assert.deepEqual(
      set.lines.map((l) => l.source_commit),
      [sha.fix, sha.insert, sha.side],
      'oldest first; everything else is filtered',
    );
    const [fix, insert, side] = set.lines;
    assert.equal(fix!.commit, sha.root, 'answers are searched at the parent');
    assert.equal(fix!.parent, sha.root);
    assert.equal(
      fix!.query,
      'Fix edge removal when the graph is empty\nThe removal walked past the end.',
    );
    assert.equal(fix!.query_title, 'Fix edge removal when the graph is empty');
    assert.deepEqual(fix!.relevant_files, ['src/graph.c'], 'the test file is no answer');
    assert.deepEqual(fix!.relevant_lines, [
      { path: 'src/graph.c', ranges: [{ start: 5, end: 6 }] },
    ]);
    assert.deepEqual(
      insert!.relevant_lines,
      [{ path: 'src/graph.c', ranges: [{ start: 10, end: 10 }] }],
      'a pure insertion counts as the line it follows',
    );
    assert.equal(side!.relevant_files[0], 'src/nodes.c');
    assert.equal(fix!.snapshot_every, undefined);
    assert.deepEqual(set.dropped, {
      'merge-or-root': 2,
      'no-source': 1,
      'format-only': 1,
      'bot-or-release': 1,
      'short-message': 1,
      'only-new-files': 1,
      'too-many-files': 2,
      'tests-only': 1,
    });
    assert.equal(set.distinctCommits, 3);
    // The output reads back as a SWE-bench-form set with line answers.
    const parsed = parseQuerySet(set.lines.map((l) => JSON.stringify(l)).join('\n'));
    assert.deepEqual(parsed[0]!.relevantLines, fix!.relevant_lines);
    assert.equal(parsed[0]!.repo, 'acme/graphs');
  });

  test('spreads a smaller sample over the history', () => {
    const set = buildGitHistorySet({
      gitDir: path.join(repoDir, '.git'),
      repo: 'acme/graphs',
      maxQueries: 2,
    });
    assert.deepEqual(
      set.lines.map((l) => l.source_commit),
      [sha.fix, sha.insert],
    );
  });

  test('snapshots: queries move to a shared earlier commit unless their answers changed since', () => {
    const set = buildGitHistorySet({
      gitDir: path.join(repoDir, '.git'),
      repo: 'acme/graphs',
      snapshotEvery: 1000,
    });
    // The only snapshot is the root. graph.c changed between the root and the
    // insert's parent, so that query is dropped; nodes.c never changed before
    // the side commit, so its query moves to the root.
    assert.deepEqual(
      set.lines.map((l) => [l.source_commit, l.commit]),
      [
        [sha.fix, sha.root],
        [sha.side, sha.root],
      ],
    );
    assert.equal(set.lines[1]!.parent, sha.tests, 'the parent is kept in the line');
    assert.equal(set.lines[1]!.snapshot_every, 1000);
    assert.equal(set.dropped['changed-since-snapshot'], 1);
    assert.equal(set.distinctCommits, 1);
  });

  test('bad input: a directory that is no git repository is a clear error', () => {
    assert.throws(
      () => buildGitHistorySet({ gitDir: work, repo: 'acme/graphs' }),
      /is not a git directory or work tree/,
    );
  });

  test('parses -U0 hunks into parent-side ranges', () => {
    const diff = [
      'diff --git a/x.go b/x.go',
      '--- a/x.go',
      '+++ b/x.go',
      '@@ -3 +3 @@ func a()',
      '@@ -4,2 +4,3 @@',
      '@@ -10,0 +12,2 @@',
      'diff --git a/new.go b/new.go',
      '--- /dev/null',
      '+++ b/new.go',
      '@@ -0,0 +1,2 @@',
    ].join('\n');
    assert.deepEqual(parseHunks(diff), [
      {
        path: 'x.go',
        ranges: [
          { start: 3, end: 5 },
          { start: 10, end: 10 },
        ],
      },
    ]);
    assert.equal(repoNameFromMirror('/work/.mirror/spf13+cobra/repo'), 'spf13/cobra');
    assert.equal(repoNameFromMirror('/tmp/somewhere/.git'), undefined);
  });
});
