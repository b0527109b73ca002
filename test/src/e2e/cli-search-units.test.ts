import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

/** A Python function of 100 lines: longer than one chunk (80 lines), short enough to return whole. */
function longFunction(): string {
  const body: string[] = [];
  for (let i = 0; i < 97; i++) body.push(`    total = total + ledger_entry(${i})`);
  return ['def settle_ledger(entries):', '    total = 0', ...body, '    return total', ''].join(
    '\n',
  );
}

const TREE = {
  'app/ledger.py': longFunction(),
  'app/other.py': 'def unrelated():\n    return 1\n',
};

interface Hit {
  path: string;
  startLine: number;
  endLine: number;
  symbol: string | null;
}

/** `codesift search` returns self-contained units by default, and chunks with --files. */
describe('codesift search: results as units (CLI, end to end)', () => {
  let work: string;
  let root: string;
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-units-'));
    root = path.join(work, 'repo');
    writeTree(root, TREE);
    const r = await runCli(['index', root, '--quiet', '--no-vectors']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('a function split into chunks comes back whole, once; --files keeps its best chunk', async () => {
    const r = await runCli(['search', 'settle ledger entry total', '--json'], { cwd: root });
    assert.equal(r.code, 0, r.stderr);
    const hits: Hit[] = JSON.parse(r.stdout).results;
    const ledger = hits.filter((h) => h.path === 'app/ledger.py');
    assert.equal(ledger.length, 1, JSON.stringify(hits));
    assert.deepEqual([ledger[0]!.startLine, ledger[0]!.endLine], [1, 100]);
    assert.equal(ledger[0]!.symbol, 'settle_ledger');

    const files = await runCli(['search', 'settle ledger entry total', '--json', '--files'], {
      cwd: root,
    });
    assert.equal(files.code, 0, files.stderr);
    const best: Hit = JSON.parse(files.stdout).results[0];
    assert.equal(best.path, 'app/ledger.py');
    assert.ok(best.endLine - best.startLine + 1 <= 80, JSON.stringify(best));
  });

  test("the text output shows the unit's range", async () => {
    const r = await runCli(['search', 'settle ledger entry total'], { cwd: root });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^app\/ledger\.py:1-100 {2}settle_ledger {2}function · python · /m);
  });
});
