/**
 * The offline vocabulary bridge in the engine, over a real SQLite index of
 * a small tree: what the plan records, what the keyword side searches, and
 * a store without co-occurrence counts (the cluster's, for now).
 */
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openSqliteIndex } from '@codesift/stores';
import Database from 'better-sqlite3';
import { BRIDGE_TERM_WEIGHT } from './bridge-score.js';
import { bridgeTerms } from './bridge-step.js';
import { openEngine, openLocalEngine } from './engine.js';
import { localSearchIndex } from './search-index.js';
import { type IndexedTree, indexedTree } from './testing/indexed-tree.js';
import type { SearchEngine } from './types.js';

const TREE: Record<string, string> = {
  'src/backoff.ts': `/** Waits longer after each failed attempt before the request is sent again. */
export function retryWithBackoff(send: () => Promise<void>, attempts: number): Promise<void> {
  // the delay doubles after each timeout
  return send().catch(() => (attempts > 0 ? retryWithBackoff(send, attempts - 1) : undefined));
}
`,
  'src/client.ts': `import { retryWithBackoff } from './backoff.js';
/** Sends one request; a timeout is retried. */
export function sendRequest(url: string): Promise<void> {
  return retryWithBackoff(() => fetch(url).then(() => undefined), 3);
}
`,
  'src/flags.ts': `/** Reads command-line switches. */
export function parseFlags(argv: string[]): Record<string, boolean> {
  return Object.fromEntries(argv.map((a) => [a.replace(/^--/, ''), true]));
}
`,
  'src/backoff.test.ts': `import { retryWithBackoff } from './backoff.js';
test('a failed attempt is sent again', () => retryWithBackoff(async () => {}, 1));
`,
};

// Unrelated files, so shares of the chunks mean what they mean in a real repository.
for (let i = 0; i < 120; i++) {
  TREE[`lib/part${i}.ts`] =
    `export function compute${i}(input: number): number {\n  return input * ${i};\n}\n`;
}

const QUESTION = 'retry the request again after a timeout';

let tree: IndexedTree;
let indexPath: string;
let engine: SearchEngine;

before(async () => {
  tree = await indexedTree('codesift-bridge-', TREE);
  indexPath = tree.indexPath;
  engine = await openLocalEngine({ indexPath, embedder: null, llm: null });
});

after(async () => {
  await engine.close();
  tree.remove();
});

describe('the offline bridge', () => {
  it("adds the identifiers the repository relates to the question's words, below them", async () => {
    const r = await engine.search({ query: QUESTION, bridge: true });
    const bridge = r.plan!.bridge;
    assert.equal(bridge.decision, 'run');
    assert.ok(bridge.candidates > 0);
    assert.ok(bridge.terms.length > 0, bridge.outcome ?? '');
    // retryWithBackoff: its doc words and the chunks it shares with "timeout";
    // sendRequest: two of the question's words as name parts.
    assert.deepEqual(
      bridge.terms.map((t) => t.name),
      ['retryWithBackoff', 'sendRequest'],
    );
    assert.match(
      bridge.terms[0]!.why,
      /^name retry; doc after request again; with timeout 0\.\d+$/,
    );
    const added = r.plan!.keyword.terms.filter((t) => t.source === 'bridge');
    assert.deepEqual(
      added.map((t) => t.term),
      bridge.terms.map((t) => t.term),
    );
    assert.ok(added.every((t) => t.weight <= BRIDGE_TERM_WEIGHT && t.weight > 0));
    assert.ok(r.plan!.reasons.some((x) => /^bridge: added retryWithBackoff/.test(x)));
    assert.equal(typeof r.timings.bridge, 'number');
    assert.deepEqual(r.degraded, []);
  });

  it('is skipped when switched off, and for identifiers and short keyword queries', async () => {
    const off = await engine.search({ query: QUESTION, bridge: false });
    assert.equal(off.plan!.bridge.decision, 'skip');
    assert.match(off.plan!.bridge.reason, /^switched off/);
    // Off by default (see DEFAULT_PLANNER_CONFIG).
    assert.equal((await engine.search({ query: QUESTION })).plan!.bridge.decision, 'skip');
    assert.ok(!off.plan!.keyword.terms.some((t) => t.source === 'bridge'));
    assert.equal(off.timings.bridge, undefined);
    const ident = await engine.search({ query: 'retryWithBackoff', bridge: true });
    assert.equal(ident.plan!.bridge.decision, 'skip');
    const short = await engine.search({ query: 'timeout', bridge: true });
    assert.match(short.plan!.bridge.reason, /short keyword query/);
  });

  it("searches the bridged identifiers once, in the query's own view, when variants run", async () => {
    const r = await engine.search({
      query: `${QUESTION} in parseFlags`,
      bridge: true,
      variants: 3,
    });
    const bridged = r.plan!.bridge.terms.map((t) => t.term);
    assert.ok(bridged.length > 0, r.plan!.bridge.outcome ?? '');
    const views = r.plan!.variants.list;
    assert.deepEqual(
      views.map((v) => v.kind),
      ['words', 'identifiers'],
    );
    const inView = (i: number) =>
      views[i]!.keyword.filter((t) => t.source === 'bridge').map((t) => t.term);
    assert.deepEqual(inView(0), bridged);
    assert.deepEqual(inView(1), []);
  });

  it('gives other callers the same terms (query variants)', async () => {
    const ix = openSqliteIndex(indexPath, { readonly: true });
    try {
      const out = await bridgeTerms(localSearchIndex(ix, indexPath), QUESTION, { tests: false });
      assert.equal(out.skipped, null);
      assert.deepEqual(
        out.terms.map((t) => t.name),
        ['retryWithBackoff', 'sendRequest'],
      );
      const none = await bridgeTerms(localSearchIndex(ix, indexPath), 'the of and');
      assert.deepEqual(none, { terms: [], candidates: 0, skipped: 'no words to bridge' });
    } finally {
      ix.close();
    }
  });

  it('ranks from the table the indexer wrote as it would from the postings of an index without one', async () => {
    const copy = `${indexPath}.old.db`;
    copyFileSync(indexPath, copy);
    const raw = new Database(copy);
    const state = raw.prepare("SELECT value FROM meta WHERE key = 'bridge_assoc'").pluck().get();
    assert.equal(state, 'current', 'the index run left its co-occurrence table up to date');
    // What an index written before the table looks like.
    raw.exec("DROP TABLE bridge_assoc; DELETE FROM meta WHERE key = 'bridge_assoc'");
    raw.close();
    const terms = async (file: string) => {
      const ix = openSqliteIndex(file, { readonly: true });
      try {
        const out = await bridgeTerms(localSearchIndex(ix, file), QUESTION, { tests: false });
        return out.terms;
      } finally {
        ix.close();
      }
    };
    try {
      const fromTable = await terms(indexPath);
      assert.ok(fromTable.length > 0);
      assert.deepEqual(fromTable, await terms(copy));
    } finally {
      rmSync(copy, { force: true });
    }
  });

  it('is skipped, and the plan says why, over a store that counts no co-occurrence', async () => {
    const ix = openSqliteIndex(indexPath, { readonly: true });
    const local = localSearchIndex(ix, indexPath);
    const cluster = await openEngine({
      index: { ...local, keyword: { search: (q) => ix.keyword.search(q) } },
      embedder: null,
      llm: null,
    });
    try {
      const r = await cluster.search({ query: QUESTION, bridge: true });
      assert.match(
        r.plan!.bridge.outcome ?? '',
        /^skipped, the keyword store counts no co-occurrence/,
      );
      assert.ok(!r.plan!.keyword.terms.some((t) => t.source === 'bridge'));
      assert.ok(r.results.length > 0);
    } finally {
      await cluster.close();
    }
  });

  it('never fails a search: a failing count degrades it', async () => {
    const ix = openSqliteIndex(indexPath, { readonly: true });
    const local = localSearchIndex(ix, indexPath);
    const broken = await openEngine({
      index: {
        ...local,
        keyword: {
          search: (q) => ix.keyword.search(q),
          cooccurrence: () => Promise.reject(new Error('store gone')),
        },
      },
      embedder: null,
      llm: null,
    });
    try {
      const r = await broken.search({ query: QUESTION, bridge: true });
      assert.deepEqual(r.degraded, ['bridge: store gone']);
      assert.equal(r.plan!.bridge.outcome, 'failed, store gone');
      assert.ok(r.results.length > 0);
    } finally {
      await broken.close();
    }
  });
});
