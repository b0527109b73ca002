import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createFixedCostEmbedder,
  FIXED_EMBEDDER_DIMENSIONS,
  parseFixedEmbedderChoice,
} from './fixed-embedder.js';
import { embedderFromEnv } from './stages/embedder.js';

test('fixed:<ms> parses; other values do not', () => {
  assert.equal(parseFixedEmbedderChoice('fixed:20'), 20);
  assert.equal(parseFixedEmbedderChoice(' FIXED:2.5 '), 2.5);
  assert.equal(parseFixedEmbedderChoice('fixed:0'), 0);
  for (const bad of ['fixed', 'fixed:', 'fixed:-1', 'fixed:abc', 'fixed:20ms', 'builtin']) {
    assert.equal(parseFixedEmbedderChoice(bad), undefined, bad);
  }
  assert.throws(() => createFixedCostEmbedder(-1), /ms per chunk/);
});

test('CODESIFT_EMBEDDER=fixed:<ms> selects it; unknown values still fail', async () => {
  const e = await embedderFromEnv({ CODESIFT_EMBEDDER: 'fixed:5' });
  assert.ok(e);
  assert.equal(e.name, 'fixed:5ms-64d');
  assert.equal(e.dimensions, FIXED_EMBEDDER_DIMENSIONS);
  await e.close();
  await assert.rejects(embedderFromEnv({ CODESIFT_EMBEDDER: 'gpu' }), /fixed:<ms>/);
});

test('vectors are deterministic unit vectors, different per text', async () => {
  const a = createFixedCostEmbedder(0);
  const b = createFixedCostEmbedder(0);
  const texts = ['function addEdge() {}', 'class Graph {}', ''];
  const [va, vb] = [await a.embed(texts), await b.embed(texts)];
  assert.equal(va.length, 3);
  for (let i = 0; i < texts.length; i++) {
    const v = va[i]!;
    assert.equal(v.length, FIXED_EMBEDDER_DIMENSIONS);
    assert.deepEqual(v, vb[i]);
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
  }
  assert.notDeepEqual(va[0], va[1]);
  await Promise.all([a.close(), b.close()]);
});

test('a batch takes at least ms x chunks, and concurrent calls queue (one device)', async () => {
  const e = createFixedCostEmbedder(10);
  let t0 = performance.now();
  await e.embed(['a', 'b', 'c', 'd', 'e']);
  assert.ok(performance.now() - t0 >= 49, 'one batch of 5 at 10 ms each');
  t0 = performance.now();
  // Two batches of 3 started together run one after the other: >= 60 ms.
  await Promise.all([e.embed(['a', 'b', 'c']), e.embed(['d', 'e', 'f'])]);
  assert.ok(performance.now() - t0 >= 59, 'concurrent batches do not overlap');
  await e.close();
});

test('an aborted call rejects and does not block the next one', async () => {
  const e = createFixedCostEmbedder(1000);
  const ac = new AbortController();
  const p = e.embed(['x'], { signal: ac.signal });
  ac.abort(new Error('stop'));
  await assert.rejects(p, /stop/);
  // The queue moves on: an empty batch costs nothing.
  assert.deepEqual(await e.embed([]), []);
  await e.close();
});
