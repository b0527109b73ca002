/**
 * The minimum-evidence rule in the engine, over a real SQLite index of a
 * small tree (keyword only): nonsense and a made-up identifier whose parts
 * are real words answer nothing, real queries keep their results, and the
 * rule can be switched off. The vector side's noise floor is tested with
 * fake stores in min-evidence-step.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSqliteIndex } from '@codesift/stores';
import { openEngine, openLocalEngine } from './engine.js';
import { localSearchIndex } from './search-index.js';
import { type IndexedTree, indexedTree } from './testing/indexed-tree.js';
import type { SearchEngine } from './types.js';

const TREE: Record<string, string> = {
  'src/widget.ts': `/** Renders a widget into its parent element. */
export function renderWidget(parent: Element): void {
  parent.append('widget');
}
`,
  'src/cli.test.ts': `test('an unknown flag is refused', () => {
  expect(() => parse(['--frobnicate'])).toThrow();
});
`,
  'src/graph.ts': `/** Inserts an edge between two nodes of the graph. */
export function addEdge(from: string, to: string): void {
  edges.push([from, to]);
}
`,
};

let tree: IndexedTree;
let engine: SearchEngine;

before(async () => {
  tree = await indexedTree('codesift-evidence-', TREE);
  engine = await openLocalEngine({ indexPath: tree.indexPath, embedder: null, llm: null });
});

after(async () => {
  await engine.close();
  tree.remove();
});

describe('minimum evidence', () => {
  it('a made-up identifier whose parts are real words finds nothing, and says why', async () => {
    const r = await engine.search({ query: 'FrobnicateWidgetQuux' });
    assert.deepEqual(r.results, []);
    assert.equal(r.plan!.evidence.outcome?.kind, 'none');
    assert.deepEqual(r.plan!.evidence.ownTerms, [
      'frobnicatewidgetquux',
      'frobnicate_widget_quux',
      'frobnicate-widget-quux',
    ]);
    assert.ok(r.plan!.reasons.some((x) => /^evidence: none of the query's own terms/.test(x)));
  });

  it('switched off, the parts match as before', async () => {
    const r = await engine.search({ query: 'FrobnicateWidgetQuux', minEvidence: false });
    assert.ok(r.results.length > 0, 'the parts frobnicate and widget match');
    assert.equal(r.plan!.evidence.outcome, null);
    assert.match(r.plan!.reasons.find((x) => x.startsWith('evidence:'))!, /^evidence: off/);
  });

  it('an identifier written in another convention is the own term, not a part', async () => {
    const r = await engine.search({ query: 'add_edge' });
    assert.equal(r.results[0]?.path, 'src/graph.ts');
    assert.equal(r.plan!.evidence.outcome?.kind, 'own-terms');
  });

  it('a question keeps its results when one of its words is indexed', async () => {
    const r = await engine.search({ query: 'where are edges inserted in the graph' });
    assert.equal(r.results[0]?.path, 'src/graph.ts');
    assert.equal(r.plan!.evidence.outcome?.kind, 'own-terms');
  });

  it('nonsense words find nothing without any rule', async () => {
    const r = await engine.search({ query: 'xyzzyplugh frobnicator' });
    assert.deepEqual(r.results, []);
  });

  it('over a store that counts no terms (the cluster, for now), it is not applied', async () => {
    const ix = openSqliteIndex(tree.indexPath, { readonly: true });
    const local = localSearchIndex(ix, tree.indexPath);
    const cluster = await openEngine({
      index: { ...local, keyword: { search: (q) => ix.keyword.search(q) } },
      embedder: null,
      llm: null,
    });
    try {
      const r = await cluster.search({ query: 'FrobnicateWidgetQuux' });
      assert.ok(r.results.length > 0, 'the parts match, as before the rule');
      assert.ok(
        r.plan!.reasons.includes('evidence: not judged, the keyword store counts no terms'),
      );
    } finally {
      await cluster.close();
    }
  });
});
