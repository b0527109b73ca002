import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

/** `codesift eval` as a user runs it: the real launcher in a child process. */
describe('codesift eval (CLI, end to end)', () => {
  let work: string;
  let root: string;
  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-eval-e2e-'));
    root = path.join(work, 'tree');
    writeTree(root, {
      'src/graph.ts':
        'export class GraphStore {\n  addEdge(from: string, to: string): void {\n    void from;\n    void to;\n  }\n}\n',
      'src/tokens.py':
        'def tokenize_words(text):\n    """Split text into lowercase words."""\n    return text.lower().split()\n',
      'src/retry.go':
        'package net\n\n// RetryPolicy backs off between attempts.\ntype RetryPolicy struct {\n\tAttempts int\n}\n',
      'docs/guide.md': '# Guide\n\nHow to configure the server timeout.\n',
    });
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  const line = (o: object) => `${JSON.stringify(o)}\n`;

  test('--json reports both systems; obvious answers score Acc@1 = 1', async () => {
    const set = path.join(work, 'obvious.jsonl');
    writeFileSync(
      set,
      line({
        id: 'a',
        class: 'exact-identifier',
        query: 'GraphStore',
        relevant_files: ['src/graph.ts'],
      }) +
        line({
          id: 'b',
          class: 'exact-identifier',
          query: 'tokenize_words',
          relevant_files: ['src/tokens.py'],
        }) +
        line({
          id: 'c',
          class: 'exact-identifier',
          query: 'RetryPolicy',
          relevant_files: ['src/retry.go'],
        }) +
        line({
          id: 'd',
          class: 'docs',
          query: 'configure the server timeout',
          grades: { 'docs/guide.md': 2 },
        }),
    );
    const r = await runCli(['eval', '--set', set, '--repo', root, '--json', '--no-vectors'], {
      cwd: work,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /queries 4\/4/, 'progress goes to stderr');
    const report = JSON.parse(r.stdout);
    assert.equal(report.mode, 'repo');
    assert.equal(report.queryField, 'query');
    assert.deepEqual(report.engine, {
      vectors: false,
      embedder: null,
      fusion: 'default',
      switches: {},
    });
    assert.equal(report.baseline.name, 'bm25');
    for (const system of ['codesift', 'bm25']) {
      const s = report.overall[system];
      for (const key of ['acc1', 'acc5', 'acc10', 'recall5', 'recall10', 'mrr10', 'ndcg10']) {
        assert.equal(typeof s[key], 'number', `${system}.${key}`);
      }
      assert.equal(typeof s.latencyMs.median, 'number');
      assert.equal(typeof s.latencyMs.p95, 'number');
      assert.equal(s.count, 4);
    }
    assert.equal(report.overall.codesift.acc1, 1);
    assert.equal(report.overall.codesift.mrr10, 1);
    assert.deepEqual(Object.keys(report.byClass).sort(), ['docs', 'exact-identifier']);
    assert.equal(report.byClass['exact-identifier'].codesift.count, 3);
    assert.equal(report.queries.length, 4);
    const a = report.queries.find((q: { id: string }) => q.id === 'a');
    assert.equal(a.codesift.firstRelevantRank, 1);
    assert.equal(a.codesift.files[0], 'src/graph.ts');
    assert.equal(typeof a.bm25.firstRelevantRank, 'number');
    assert.equal(report.checkouts.length, 1);
  });

  test('the human report shows both systems side by side, and --no-baseline drops one', async () => {
    const set = path.join(root, 'set.jsonl'); // inside the tree: must not answer itself
    writeFileSync(
      set,
      line({ id: 'a', query: 'RetryPolicy backs off', relevant_files: ['src/retry.go'] }),
    );
    const r = await runCli(['eval', '--set', set, '--repo', root, '--no-vectors'], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /overall\s+codesift\s+1\s+1\.000/);
    assert.match(r.stdout, /\n\s+bm25\s+1\s/);
    const json = await runCli(
      ['eval', '--set', set, '--repo', root, '--no-vectors', '--no-baseline', '--json'],
      { cwd: work },
    );
    const report = JSON.parse(json.stdout);
    assert.equal(report.baseline, null);
    assert.equal(report.overall.bm25, undefined);
    assert.ok(
      report.queries[0].codesift.files.every((f: string) => f !== 'set.jsonl'),
      'the set file is not indexed',
    );
  });

  test('a bad set line fails with its line number; a wrong command line is a usage error', async () => {
    const set = path.join(work, 'bad.jsonl');
    writeFileSync(set, `${line({ id: 'a', query: 'x', relevant_files: ['a'] })}{"id": "b"\n`);
    const bad = await runCli(['eval', '--set', set, '--repo', root, '--no-vectors']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /bad\.jsonl:2: not valid JSON/);
    const usage = await runCli(['eval', '--set', set]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /exactly one of --repo <dir> or --checkouts <dir>/);
  });
});
