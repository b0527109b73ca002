import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openLocalEngine } from './engine.js';
import { indexTree } from './test-support.js';

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
    const made = await indexTree('codesift-templates-', TREE);
    dir = made.dir;
    indexPath = made.indexPath;
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
