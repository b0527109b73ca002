import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmbedBatcher } from './batcher.js';

/** Embeds a text as [length], recording each batch it was asked for. */
function recordingEmbed(batches: string[][], delayMs = 1) {
  return async (texts: string[]) => {
    batches.push(texts);
    await new Promise((r) => setTimeout(r, delayMs));
    return texts.map((t) => Float32Array.of(t.length));
  };
}

test('packs texts of many files into full batches and releases files in order', async () => {
  const batches: string[][] = [];
  const b = new EmbedBatcher<string>(recordingEmbed(batches), 4);
  await b.add('f1', ['a', 'bb', 'ccc']);
  await b.add('f2', ['dddd', 'eeeee']);
  await b.add('empty', []);
  await b.add('f3', ['ffffff']);
  await b.flush();
  assert.deepEqual(batches, [
    ['a', 'bb', 'ccc', 'dddd'],
    ['eeeee', 'ffffff'],
  ]);
  const ready = b.takeReady();
  assert.deepEqual(
    ready.map((p) => [p.item, p.vectors.map((v) => v?.[0])]),
    [
      ['f1', [1, 2, 3]],
      ['f2', [4, 5]],
      ['empty', []],
      ['f3', [6]],
    ],
  );
  assert.equal(b.pendingFiles, 0);
});

test('a file is not ready while any of its chunks waits for a vector', async () => {
  const b = new EmbedBatcher<string>(recordingEmbed([]), 2);
  await b.add('f1', ['a', 'b', 'c']); // launches [a,b]; c waits
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(b.takeReady(), []);
  await b.flush();
  assert.deepEqual(
    b.takeReady().map((p) => p.item),
    ['f1'],
  );
});

test('an embedder failure surfaces to the caller', async () => {
  const b = new EmbedBatcher<string>(async () => {
    throw new Error('model crashed');
  }, 2);
  await b.add('f1', ['a', 'b']);
  await assert.rejects(b.flush(), /model crashed/);
});

test('a wrong number of vectors is an error, not a silent misalignment', async () => {
  const b = new EmbedBatcher<string>(async (t) => t.slice(1).map(() => Float32Array.of(0)), 2);
  await b.add('f1', ['a', 'b']);
  await assert.rejects(b.flush(), /returned 1 vectors for 2 texts/);
});

test('keeps up to maxInFlight batches embedding at once, never more', async () => {
  let running = 0;
  let most = 0;
  const b = new EmbedBatcher<string>(
    async (texts) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return texts.map((t) => Float32Array.of(t.length));
    },
    2,
    2,
  );
  for (let i = 0; i < 6; i++) await b.add(`f${i}`, ['x'.repeat(i + 1), 'y'.repeat(i + 1)]);
  await b.flush();
  assert.equal(most, 2);
  assert.deepEqual(
    b.takeReady().map((p) => [p.item, p.vectors.map((v) => v?.[0])]),
    Array.from({ length: 6 }, (_, i) => [`f${i}`, [i + 1, i + 1]]),
  );
});

test('a batch that ends early frees its slot while an older one still runs', async () => {
  let started = 0;
  let startedBeforeSlowEnded = 0;
  const b = new EmbedBatcher<string>(
    async (texts) => {
      const slow = started++ === 0;
      // The first batch is slow, as on a worker the scheduler left behind.
      await new Promise((r) => setTimeout(r, slow ? 150 : 5));
      if (slow) startedBeforeSlowEnded = started;
      return texts.map((t) => Float32Array.of(t.length));
    },
    1,
    2,
  );
  for (let i = 0; i < 6; i++) await b.add(`f${i}`, ['x'.repeat(i + 1)]);
  await b.flush();
  // Waiting for the oldest batch would have started only the second by then.
  assert.ok(startedBeforeSlowEnded >= 5, `${startedBeforeSlowEnded} batches started`);
  assert.deepEqual(
    b.takeReady().map((p) => p.vectors[0]?.[0]),
    [1, 2, 3, 4, 5, 6],
  );
});
