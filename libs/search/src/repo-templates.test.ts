import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { indexRepository } from '@codesift/pipeline';
import { openLocalEngine } from './engine.js';

// The repository's own issue form: its labels are the report's skeleton.
const TREE: Record<string, string> = {
  '.github/ISSUE_TEMPLATE/bug.yml': `name: Bug report
description: Something in the ledger does not add up
body:
  - type: textarea
    attributes:
      label: Describe the ledger bug you found
  - type: textarea
    attributes:
      label: Minimal ledger example to reproduce the bug
`,
  'app/ledger.py': `def settle(entries):
    """Adds up the ledger entries."""
    return sum(e.amount for e in entries)
`,
  'app/other.py': 'def unrelated():\n    return 1\n',
};

const REPORT = `### Describe the ledger bug you found

settle returns a float sum of the amounts

### Minimal ledger example to reproduce the bug

settle(entries)
`;

describe('the repository issue templates as boilerplate (engine)', () => {
  let dir: string;
  let indexPath: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-templates-'));
    const root = path.join(dir, 'repo');
    for (const [rel, text] of Object.entries(TREE)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    }
    indexPath = path.join(dir, 'index.db');
    await indexRepository({ root, indexPath, vectors: false });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("cuts the template's lines from a report and ranks code above the template", async () => {
    const engine = await openLocalEngine({ indexPath, embedder: null });
    try {
      const res = await engine.search({ query: REPORT, keywordOnly: true });
      const kinds = res.plan!.rewrite.removed.map((r) => r.kind);
      assert.deepEqual(kinds, ['template', 'template']);
      assert.equal(res.results[0]!.path, 'app/ledger.py');
      const template = res.results.findIndex((r) => r.path.startsWith('.github/'));
      assert.ok(template === -1 || template > 0);

      const off = await engine.search({ query: REPORT, keywordOnly: true, boilerplate: false });
      assert.deepEqual(off.plan!.rewrite.removed, []);
    } finally {
      await engine.close();
    }
  });
});
