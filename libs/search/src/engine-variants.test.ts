/**
 * Query variants in the engine: retrieved in parallel (a slow store proves
 * they overlap), embedded in one batch (the embedder counts its calls),
 * merged, listed in the plan with their hits, and a failing variant only
 * degrades the answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type KeywordQuery, openSqliteIndex } from '@codesift/stores';
import { openEngine, openLocalEngine } from './engine.js';
import type { SearchIndex } from './search-index.js';
import {
  hashEmbedder as countingEmbedder,
  type IndexedTree,
  indexedTree,
} from './testing/fixtures.js';
import type { SearchEngine } from './types.js';

const TREE: Record<string, string> = {
  'app/session/store.py': `"""Session storage."""


class SessionStore:
    """Loads and saves sessions by their cookie id."""

    def load(self, key):
        data = self.backend.read(key)
        return data or {}
`,
  'app/http/cookies.py': `"""Cookie helpers."""


def get_cookie_header(request):
    """The Cookie header of a request, '' when none."""
    return request.headers.get('Cookie', '')
`,
  'app/auth/redirect.py': `"""Redirects to the login page keep the session."""


def redirect_to_login(response, session):
    """Sends the user to the login page after a lost session."""
    response.status = 302
    return response
`,
  'docs/guide.md': '# Guide\n\nSessions live in cookies; the login page starts one.\n',
};

const REPORT = [
  'Session lost after redirect to the login page',
  '',
  'When the user is sent to the login page the `SessionStore.load` call returns',
  'an empty session, although `get_cookie_header` still holds the id.',
  'Steps: start the app, sign in, follow a redirect, then reload the page.',
  'Expected the session to survive; got a fresh one and the user signs in again.',
  'Traceback (most recent call last):',
  '  File "app/session/store.py", line 8, in load',
  '    data = self.backend.read(key)',
  'KeyError: session',
].join('\n');

let tree: IndexedTree;
let indexPath: string;

before(async () => {
  tree = await indexedTree(TREE, { vectors: true, embedder: countingEmbedder() });
  indexPath = tree.indexPath;
});

after(() => tree.remove());

/** The SQLite index behind a keyword store that answers after `delayMs`, counting searches in flight. */
function slowIndex(delayMs: number, fail?: (q: KeywordQuery) => boolean) {
  const db = openSqliteIndex(indexPath, { readonly: true });
  const stats = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const index: SearchIndex = {
    location: 'test://slow',
    keyword: {
      search: async (q) => {
        stats.calls++;
        stats.inFlight++;
        stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
        try {
          await sleep(delayMs);
          if (fail?.(q)) throw new Error('keyword store down');
          return db.keyword.search(q);
        } finally {
          stats.inFlight--;
        }
      },
    },
    vectors: { search: async (q) => db.vectors.search(q) },
    symbols: db.symbols,
    chunks: db.chunks,
    manifest: db.manifest,
    meta: async () => db.meta(),
    stats: async () => db.stats(),
    close: async () => db.close(),
  };
  return { index, stats };
}

describe('query variants in the engine', () => {
  it('off (0 or 1): one retrieval, as before variants existed; a report gets them by default', async () => {
    const engine = await openLocalEngine({ indexPath, embedder: countingEmbedder() });
    try {
      const zero = await engine.search({ query: REPORT, variants: 0 });
      const one = await engine.search({ query: REPORT, variants: 1 });
      assert.deepEqual(one.results, zero.results);
      assert.deepEqual(zero.plan!.variants.list, []);
      assert.ok(!zero.plan!.reasons.some((r) => r.startsWith('variants:')));
      const byDefault = await engine.search({ query: REPORT });
      assert.deepEqual(
        byDefault.plan!.variants.list.map((v) => v.kind),
        ['words', 'summary', 'entities'],
      );
      const short = await engine.search({ query: 'session store load' });
      assert.deepEqual(short.plan!.variants.list, [], 'a short query has no other view');
    } finally {
      await engine.close();
    }
  });

  it('variants retrieve in parallel: three views cost one slow keyword call, not three', async () => {
    const delay = 150;
    const { index, stats } = slowIndex(delay);
    const engine = await openEngine({ index, embedder: countingEmbedder() });
    try {
      await engine.search({ query: 'warm up', keywordOnly: true });
      stats.calls = 0;
      stats.maxInFlight = 0;
      const t0 = performance.now();
      const res = await engine.search({ query: REPORT, variants: 3, keywordOnly: true });
      const ms = performance.now() - t0;
      assert.equal(stats.calls, 3, 'one keyword search per variant');
      assert.equal(stats.maxInFlight, 3, 'all three in flight at once');
      assert.ok(ms < 2 * delay, `${Math.round(ms)} ms: the variants overlapped`);
      assert.ok(res.results.length > 0);
    } finally {
      await engine.close();
    }
  });

  it('the vector side embeds every variant in one batch; the plan lists each variant with its hits', async () => {
    const embedder = countingEmbedder();
    const engine = await openLocalEngine({ indexPath, embedder });
    try {
      await engine.search({ query: 'warm up the model' });
      embedder.batches.length = 0;
      const plain = await engine.search({ query: REPORT, variants: 3 });
      assert.deepEqual(
        embedder.batches.map((b) => b.length),
        [1],
        'by default only the query itself is embedded',
      );
      assert.ok(plain.plan!.variants.list.slice(1).every((v) => !v.vector.run));
      embedder.batches.length = 0;
      const res = await engine.search({
        query: REPORT,
        variants: 3,
        variantVectors: true,
        explain: true,
      });
      assert.equal(embedder.batches.length, 1, 'one embed() call');
      assert.equal(
        embedder.batches[0]!.length,
        2,
        'the query and its summary (names are not embedded)',
      );
      const list = res.plan!.variants.list;
      assert.deepEqual(
        list.map((v) => v.kind),
        ['words', 'summary', 'entities'],
      );
      for (const v of list) assert.ok(v.hits !== null && v.hits > 0, `${v.kind} has hits`);
      assert.ok(res.results.slice(0, 3).some((r) => r.path === 'app/session/store.py'));
      assert.deepEqual(res.degraded, []);
    } finally {
      await engine.close();
    }
  });

  it('a failing variant degrades the answer, never fails it', async () => {
    // The entities view's keyword call (names only: none of the report's prose words) fails,
    // so its retrieval fails whole.
    const { index } = slowIndex(1, (q) => !q.terms.some((t) => t.term.includes('redirect')));
    const engine: SearchEngine = await openEngine({ index, embedder: countingEmbedder() });
    try {
      const res = await engine.search({ query: REPORT, variants: 3 });
      assert.ok(res.results.length > 0);
      assert.ok(
        res.degraded.some((d) => d.startsWith('variant entities:')),
        JSON.stringify(res.degraded),
      );
      const entities = res.plan!.variants.list.find((v) => v.kind === 'entities')!;
      assert.equal(entities.hits, null);
    } finally {
      await engine.close();
    }
  });

  it('bad variant options are refused with the option named', async () => {
    const engine = await openLocalEngine({ indexPath, embedder: null });
    try {
      await assert.rejects(engine.search({ query: 'x', variants: 99 }), /variants must be/);
      await assert.rejects(
        engine.search({ query: 'x', variants: 2, variantKinds: ['nope' as never] }),
        /unknown variant kind/,
      );
      await assert.rejects(
        engine.search({ query: 'x', variantMerge: 'sum' as never }),
        /unknown variantMerge/,
      );
    } finally {
      await engine.close();
    }
  });
});
