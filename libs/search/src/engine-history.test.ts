// The history prior end to end: a real git repository indexed by the
// pipeline, searched by the engine. The keyword side alone ranks the file
// that talks most about the symptom above the one where the behaviour
// lives; the commit that last fixed it names that file, and the prior
// lifts it (the first place, the code side's, stays where it is).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { indexRepository } from '@codesift/pipeline';
import { commitAll, gitIn } from '@codesift/scanner/testing';
import { openLocalEngine } from './engine.js';
import type { SearchEngine } from './types.js';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
}

const QUERY = 'fallback handler skipped for unknown verbs';

describe('history prior', () => {
  let dir: string;
  let engine: SearchEngine;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-history-engine-'));
    const root = path.join(dir, 'repo');
    write(root, {
      'lib/verbs.js':
        '// fallback handler skipped for unknown verbs: fallback handler, skipped, unknown verbs.\n' +
        'export const verbs = ["fallback handler skipped for unknown verbs", "unknown verbs"];\n',
      'lib/messages.js':
        '// The fallback handler messages: a handler that was skipped, unknown verbs.\n' +
        'export const skipped = "fallback handler skipped";\n' +
        'export const unknown = "unknown verbs reach the fallback handler";\n',
      'lib/dispatch.js':
        'export function dispatchRequest(table, req) {\n' +
        '  const route = table[req.method];\n' +
        '  return route ? route(req) : undefined;\n' +
        '}\n' +
        '// unknown methods\n',
      'lib/other.js': 'export function unrelated() { return 1; }\n',
    });
    gitIn(root, 'init', '-q');
    commitAll(root, 'Initial import');
    write(root, {
      'lib/dispatch.js':
        'export function dispatchRequest(table, req) {\n' +
        '  const route = table[req.method];\n' +
        '  return route ? route(req) : table.fallback(req);\n' +
        '}\n' +
        '// unknown methods\n',
      'test/dispatch.test.js': 'test("unknown verbs reach the fallback handler", () => {});\n',
    });
    commitAll(root, 'Call the fallback handler for unknown verbs instead of skipping it');
    write(root, { 'lib/other.js': 'export function unrelated() { return 2; }\n' });
    commitAll(root, 'Tidy an unrelated helper');
    const indexPath = path.join(dir, 'index.db');
    const summary = await indexRepository({ root, indexPath, vectors: false });
    assert.equal(summary.historyCommits, 3);
    engine = await openLocalEngine({ indexPath, embedder: null });
  });
  after(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('without the prior, the file that talks about the symptom comes before it', async () => {
    const r = await engine.search({ query: QUERY, collapseFiles: true, history: false });
    assert.deepEqual(
      r.results.slice(0, 2).map((h) => h.path),
      ['lib/verbs.js', 'lib/messages.js'],
    );
    assert.ok(r.results.some((h) => h.path === 'lib/dispatch.js'));
    assert.ok(r.plan?.reasons.includes('history: off, switched off'));
  });

  it('with it, the file the matching commit changed passes it (its test file gets no vote)', async () => {
    const r = await engine.search({ query: QUERY, collapseFiles: true });
    assert.deepEqual(
      r.results.slice(0, 2).map((h) => h.path),
      ['lib/verbs.js', 'lib/dispatch.js'],
    );
    assert.ok(r.plan?.reasons.some((x) => x.startsWith('history: the files of the 30 commits')));
    const chunks = await engine.search({ query: QUERY });
    assert.equal(chunks.results[1]?.path, 'lib/dispatch.js', 'the chunk list too');
  });

  it('an identifier-only query is left to the definitions', async () => {
    const r = await engine.search({ query: 'dispatchRequest', collapseFiles: true });
    assert.ok(
      r.plan?.reasons.includes('history: off, an identifier-only query asks for its definition'),
    );
  });
});
