// The query service follows the writer's index: a recorded embedder or a
// rebuilt file makes it open the index again; calls in flight finish on the
// engine they started on.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openLocalEngine, type SearchEngine } from '@codesift/search';
import { openSqliteIndex } from '@codesift/stores';
import { openReopeningEngine, readIndexIdentity } from './reopening-engine.js';

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'codesift-reopen-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('reopens after the writer records an embedder and after a rebuild, not otherwise', async () => {
  const indexPath = path.join(dir, 'index.db');
  assert.equal(readIndexIdentity(indexPath), null, 'no file yet');
  openSqliteIndex(indexPath, { create: true }).close();
  const opened: SearchEngine[] = [];
  const closed: SearchEngine[] = [];
  const reopened: (string | null)[] = [];
  const engine = await openReopeningEngine({
    indexPath,
    // A long poll: the test drives the checks itself.
    pollMs: 3_600_000,
    open: async () => {
      const e = await openLocalEngine({ indexPath, embedder: null, config: null });
      const tracked: SearchEngine = {
        search: (r) => e.search(r),
        lookupSymbol: (n, o) => e.lookupSymbol(n, o),
        vocabulary: (o) => e.vocabulary(o),
        status: () => e.status(),
        getSnippet: (p, a, b) => e.getSnippet(p, a, b),
        close: async () => {
          closed.push(tracked);
          await e.close();
        },
      };
      opened.push(tracked);
      return tracked;
    },
    onReopen: (id) => reopened.push(id.embedder),
  });
  try {
    assert.equal(opened.length, 1);
    assert.equal(await engine.check(), false, 'nothing changed');
    assert.equal((await engine.engine.status()).embedder, null);

    const writer = openSqliteIndex(indexPath);
    writer.setEmbedder('test-model', 4);
    writer.close();
    // A search in flight keeps its engine until it returns.
    const inFlight = engine.engine.search({ query: 'x' });
    assert.equal(await engine.check(), true);
    assert.deepEqual(reopened, ['test-model']);
    assert.equal((await engine.engine.status()).embedder, 'test-model');
    await inFlight;
    assert.deepEqual(closed, [opened[0]], 'the old engine closed after its last call');

    // A rebuild starts a new file (as `codesift index --rebuild` does).
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${indexPath}${suffix}`, { force: true });
    const rebuilt = openSqliteIndex(indexPath, { create: true });
    rebuilt.setRoot('/rebuilt');
    rebuilt.close();
    assert.equal(await engine.check(), true);
    assert.equal((await engine.engine.status()).root, '/rebuilt');
    assert.equal(opened.length, 3);
  } finally {
    await engine.close();
  }
  assert.equal(closed.length, 3, 'close releases the current engine');
});
