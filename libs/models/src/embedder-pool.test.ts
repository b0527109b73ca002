import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBuiltinEmbedder } from './builtin-embedder.js';
import { EmbedderPool, type PoolMember } from './embedder-pool.js';

/** A member that answers [its id] per text after `ms`, counting what it holds. */
function fakeMember(id: number, ms = 5): PoolMember & { calls: number; dead?: Error } {
  const member = {
    name: 'fake',
    dimensions: 1,
    maxBatch: 4,
    load: 0,
    calls: 0,
    dead: undefined as Error | undefined,
    get failure() {
      return member.dead;
    },
    async embed(texts: string[]) {
      if (member.dead) throw member.dead;
      member.calls++;
      member.load += texts.length;
      await new Promise((r) => setTimeout(r, ms));
      member.load -= texts.length;
      return texts.map(() => Float32Array.of(id));
    },
    async close() {},
  };
  return member;
}

test('each call goes to the member with the least work; failed members are skipped', async () => {
  const a = fakeMember(1);
  const b = fakeMember(2);
  const pool = new EmbedderPool([a, b]);
  const answers = await Promise.all([
    pool.embed(['x', 'x', 'x']),
    pool.embed(['y']),
    pool.embed(['z']),
  ]);
  // 3 texts to a, then b is the lighter one twice.
  assert.deepEqual(
    answers.map((v) => v.map((x) => x[0])),
    [[1, 1, 1], [2], [2]],
  );
  a.dead = new Error('thread died');
  assert.deepEqual(
    (await Promise.all([pool.embed(['p']), pool.embed(['q'])])).map((v) => v[0]![0]),
    [2, 2],
  );
  b.dead = new Error('thread died too');
  await assert.rejects(pool.embed(['r']), /thread died/);
});

test('a pool of two model workers gives the in-thread vectors', async () => {
  const [pool, inThread] = await Promise.all([
    createBuiltinEmbedder({ threads: 2, workers: 2 }),
    createBuiltinEmbedder({ threads: 1, thread: 'main' }),
  ]);
  try {
    const texts = Array.from({ length: 20 }, (_, i) => `row ${i}: ${'token '.repeat(i)}`);
    const expected = await inThread.embed(texts);
    // Fired together, the halves run in different workers.
    const halves = await Promise.all([pool.embed(texts.slice(0, 10)), pool.embed(texts.slice(10))]);
    let diff = 0;
    halves.flat().forEach((v, i) => {
      for (let k = 0; k < v.length; k++) diff = Math.max(diff, Math.abs(v[k]! - expected[i]![k]!));
    });
    assert.ok(diff < 1e-5, `max diff ${diff}`);
  } finally {
    await Promise.all([pool.close(), inThread.close()]);
  }
});

test('the pool runs as many batches at once as its members together, so a caller can keep each busy', async () => {
  assert.equal(new EmbedderPool([fakeMember(1), fakeMember(2)]).concurrency, 2);
  const built = await createBuiltinEmbedder({ threads: 2 });
  try {
    // Two single-threaded workers, each with a batch running and one queued.
    assert.equal(built.concurrency, 4);
  } finally {
    await built.close();
  }
});
