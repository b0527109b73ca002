import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createBuiltinEmbedder } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';

const run = promisify(execFile);

let inWorker: Embedder;
let inThread: Embedder;
before(async () => {
  [inWorker, inThread] = await Promise.all([
    createBuiltinEmbedder({ threads: 1 }),
    createBuiltinEmbedder({ threads: 1, thread: 'main' }),
  ]);
});
after(async () => {
  await Promise.all([inWorker.close(), inThread.close()]);
});

const code =
  'export function parse(input: string): Token[] {\n  return lex(input).filter(Boolean);\n}\n';
const texts = [
  'function add(a, b) { return a + b; }',
  '',
  'How do I read a file line by line in Node.js?',
  code.repeat(20),
  'x',
  ...Array.from({ length: 40 }, (_, i) => `item ${i}: ${'value '.repeat(i % 13)}`),
];

function maxDiff(a: Float32Array[], b: Float32Array[]): number {
  let diff = 0;
  a.forEach((v, i) => {
    for (let k = 0; k < v.length; k++) diff = Math.max(diff, Math.abs(v[k]! - b[i]![k]!));
  });
  return diff;
}

test('the worker gives the in-thread vectors within 1e-5', async () => {
  const [fromWorker, fromThread] = await Promise.all([
    inWorker.embed(texts),
    inThread.embed(texts),
  ]);
  assert.equal(fromWorker.length, texts.length);
  for (const v of fromWorker) assert.equal(v.length, 512);
  const diff = maxDiff(fromWorker, fromThread);
  assert.ok(diff < 1e-5, `max diff ${diff}`);
  // Concurrent calls through the worker still get their own rows.
  const split = await Promise.all([
    inWorker.embed(texts.slice(0, 7)),
    inWorker.embed(texts.slice(7)),
  ]);
  assert.ok(maxDiff(split.flat(), fromThread) < 1e-5);
});

test('an error in one batch fails that call only', async () => {
  // A text that is not a string makes the worker's tokenizer throw.
  const bad = inWorker.embed([42 as unknown as string]);
  const good = inWorker.embed(['still works']);
  await assert.rejects(bad, { name: 'TypeError' });
  const [expected] = await inThread.embed(['still works']);
  assert.ok(maxDiff(await good, [expected!]) < 1e-5);
  assert.ok(
    maxDiff(await inWorker.embed(['after the error']), await inThread.embed(['after the error'])) <
      1e-5,
  );
});

test('the event loop keeps turning while the worker embeds a large batch', async () => {
  // One batch of 96 long texts: on the calling thread it blocks the loop for its whole run.
  const embedder = await createBuiltinEmbedder({ threads: 1, batchSize: 96 });
  try {
    const batch = Array.from({ length: 96 }, (_, i) => `${i} ${code.repeat(8)}`);
    let last = performance.now();
    let maxGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    await embedder.embed(batch);
    const embedMs = performance.now() - started;
    clearInterval(ticker);
    // A blocked loop runs no tick before this line: the stall ends here.
    maxGap = Math.max(maxGap, performance.now() - last);
    console.log(`# embed ${embedMs.toFixed(0)} ms, longest timer gap ${maxGap.toFixed(0)} ms`);
    assert.ok(embedMs > 100, `the batch took only ${embedMs} ms: too short to tell`);
    assert.ok(maxGap < embedMs / 2, `timer stalled ${maxGap} ms of a ${embedMs} ms embed`);
  } finally {
    await embedder.close();
  }
});

test('an aborted call waiting behind others is dropped, the others finish', async () => {
  const controller = new AbortController();
  // 32 texts are more than the worker is given at once (two batches of 8):
  // the later calls wait on this side.
  const first = inWorker.embed(texts.slice(0, 32));
  const second = inWorker.embed(texts.slice(0, 32));
  const third = inWorker.embed(['dropped'], { signal: controller.signal });
  const settled: string[] = [];
  void first.then(() => settled.push('first'));
  void third.catch(() => settled.push('third'));
  controller.abort();
  await assert.rejects(third, { name: 'AbortError' });
  // Dropped at once, not after the batches ahead of it.
  assert.deepEqual(settled, ['third']);
  assert.equal((await first).length, 32);
  assert.equal((await second).length, 32);
});

test('embed after close is refused', async () => {
  const embedder = await createBuiltinEmbedder({ threads: 1 });
  await embedder.close();
  await embedder.close();
  await assert.rejects(embedder.embed(['x']), { code: 'INTERNAL' });
});

const moduleUrl = new URL('./builtin-embedder.js', import.meta.url).href;
for (const closes of [true, false]) {
  test(`a process that embeds ${closes ? 'and closes' : 'without close()'} exits by itself`, async () => {
    const script = `
      const { createBuiltinEmbedder } = await import(${JSON.stringify(moduleUrl)});
      const embedder = await createBuiltinEmbedder({ threads: 1 });
      const [v] = await embedder.embed(['hello']);
      const started = performance.now();
      ${closes ? 'await embedder.close();' : ''}
      console.log(v.length, Math.round(performance.now() - started));
    `;
    // A worker that keeps the process alive runs into the timeout and fails the test.
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 60_000,
      cwd: fileURLToPath(new URL('.', import.meta.url)),
    });
    const [dimensions, closeMs] = stdout.trim().split(' ').map(Number);
    assert.equal(dimensions, 512);
    // Far below close()'s 10 s grace: the thread ended by itself, it was not terminated.
    assert.ok(closeMs! < 5_000, `close() took ${closeMs} ms`);
  });
}
