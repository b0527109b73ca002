import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createBuiltinEmbedder } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import { loadTfjsReference, type TfjsReference } from './tfjs-reference.js';
import { UseTokenizer } from './tokenizer.js';
import { useLiteVocabPath } from './use-lite-files.js';
import { cosine } from './vector-math.js';

let embedder: Embedder;
before(async () => {
  embedder = await createBuiltinEmbedder({ threads: 2 });
});
after(async () => {
  await embedder.close();
});

const samples = [
  'function add(a, b) {\n  return a + b;\n}',
  'How do I read a file line by line in Node.js?',
  'The quick brown fox jumps over the lazy dog.',
  'x',
  'import { readFile } from "node:fs/promises";\nconst text = await readFile(path, "utf8");\n'.repeat(
    12,
  ),
  'SELECT id, name FROM users WHERE created_at > NOW() - INTERVAL 1 DAY ORDER BY name;',
];

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((a, x) => a + x * x, 0));
}

test('ONNX conversion matches TF.js on the same tokens within 1e-5', async () => {
  const tokenizer = await UseTokenizer.fromFile(useLiteVocabPath());
  let reference: TfjsReference | undefined;
  try {
    reference = await loadTfjsReference();
    const expected = await reference.embedTokens(samples.map((s) => tokenizer.encode(s)));
    const actual = await embedder.embed(samples);
    assert.equal(actual.length, samples.length);
    let maxDiff = 0;
    actual.forEach((v, i) => {
      assert.equal(v.length, 512);
      for (let k = 0; k < v.length; k++)
        maxDiff = Math.max(maxDiff, Math.abs(v[k]! - expected[i]![k]!));
    });
    console.log(`# max |onnx - tfjs| = ${maxDiff.toExponential(2)}`);
    assert.ok(maxDiff < 1e-5, `max diff ${maxDiff}`);
  } finally {
    reference?.dispose();
  }
});

test('vectors are unit length and similar texts score higher than unrelated ones', async () => {
  const [sortQuery, sortCode, readCode, weather, age1, age2, invoice] = await embedder.embed([
    'sort the list of users by name',
    'users.sort((a, b) => a.name.localeCompare(b.name));',
    'const text = fs.readFileSync(path, "utf8");',
    'Tomorrow will be sunny with a light breeze in the afternoon.',
    'How old are you?',
    'What is your age?',
    'The invoice is attached to this email.',
  ]);
  for (const v of [sortQuery, sortCode, readCode, weather, age1, age2, invoice]) {
    assert.ok(Math.abs(norm(v!) - 1) < 1e-5);
  }
  assert.ok(cosine(sortQuery!, sortCode!) > cosine(sortQuery!, readCode!) + 0.1);
  assert.ok(cosine(sortQuery!, sortCode!) > cosine(sortQuery!, weather!) + 0.3);
  assert.ok(cosine(readCode!, sortCode!) > cosine(readCode!, weather!) + 0.3);
  assert.ok(cosine(age1!, age2!) > cosine(age1!, invoice!) + 0.3);
});

test('order is preserved across batches, lengths and empty texts', async () => {
  const texts = Array.from({ length: 75 }, (_, i) =>
    i % 10 === 3 ? '' : `item ${i}: ${'value '.repeat(i % 17)}`,
  );
  const many = await embedder.embed(texts);
  assert.equal(many.length, texts.length);
  const one = await Promise.all([0, 3, 17, 74].map((i) => embedder.embed([texts[i]!])));
  for (const [k, i] of [0, 3, 17, 74].entries()) {
    const diff = Math.max(...many[i]!.map((x, d) => Math.abs(x - one[k]![0]![d]!)));
    assert.ok(diff < 1e-5, `text ${i} differs by ${diff}`);
  }
  assert.ok(Math.abs(norm(many[3]!) - 1) < 1e-5);
  assert.deepEqual(await embedder.embed([]), []);
});

test('concurrent calls share batches and each gets its own vectors', async () => {
  const texts = samples.concat(samples.map((t) => `${t} (variant)`));
  const alone: Float32Array[] = [];
  for (const t of texts) alone.push((await embedder.embed([t]))[0]!);
  // Fired together, like a server's requests: their rows are batched across calls.
  const together = await Promise.all(texts.map((t) => embedder.embed([t])));
  texts.forEach((t, i) => {
    const diff = Math.max(...alone[i]!.map((x, d) => Math.abs(x - together[i]![0]![d]!)));
    assert.ok(diff < 1e-5, `${JSON.stringify(t.slice(0, 20))} differs by ${diff}`);
  });
  // Mixed sizes in flight at once, including an empty text.
  const [a, b, c] = await Promise.all([
    embedder.embed(texts.slice(0, 5)),
    embedder.embed(['', texts[7]!]),
    embedder.embed(texts.slice(3)),
  ]);
  assert.equal(a.length, 5);
  assert.equal(b.length, 2);
  assert.equal(c.length, texts.length - 3);
  assert.ok(Math.max(...b[1]!.map((x, d) => Math.abs(x - alone[7]![d]!))) < 1e-5);
  assert.ok(Math.max(...c[0]!.map((x, d) => Math.abs(x - alone[3]![d]!))) < 1e-5);
});

test('an aborted signal stops embedding', async () => {
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(embedder.embed(['a'], { signal: controller.signal }), {
    name: 'AbortError',
  });
});

test('embedder reports its identity', () => {
  assert.equal(embedder.name, 'builtin:use-lite-512');
  assert.equal(embedder.dimensions, 512);
  assert.ok(embedder.maxBatch >= 8);
});
