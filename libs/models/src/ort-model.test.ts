import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { InferenceSession } from 'onnxruntime-node';
import * as ort from 'onnxruntime-node';
import { USE_LITE_OUTPUT } from './convert/convert-use-lite.js';
import { openOrtModel, writeOrtModel } from './ort-model.js';
import { USE_LITE_MAX_TOKENS, UseTokenizer } from './tokenizer.js';
import { useLiteOnnxPath, useLiteOrtPath, useLiteVocabPath } from './use-lite-files.js';

// The options the built-in embedder opens its sessions with.
const options: InferenceSession.SessionOptions = {
  graphOptimizationLevel: 'all',
  executionMode: 'sequential',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  enableCpuMemArena: false,
  extra: { session: { intra_op: { allow_spinning: '0' } } },
};

const dir = mkdtempSync(path.join(tmpdir(), 'codesift-ort-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The model's vectors for `texts`, one batch, in the sparse input format the embedder feeds. */
async function embed(session: InferenceSession, texts: string[]): Promise<Float32Array> {
  const tokenizer = await UseTokenizer.fromFile(useLiteVocabPath());
  const rows = texts.map((t) => tokenizer.encode(t, USE_LITE_MAX_TOKENS));
  const total = rows.reduce((n, r) => n + r.length, 0);
  const indices = new BigInt64Array(total * 2);
  const values = new BigInt64Array(total);
  let k = 0;
  rows.forEach((ids, row) => {
    ids.forEach((id, col) => {
      indices[2 * k] = BigInt(row);
      indices[2 * k + 1] = BigInt(col);
      values[k++] = BigInt(id);
    });
  });
  const out = await session.run({
    indices: new ort.Tensor('int64', indices, [total, 2]),
    values: new ort.Tensor('int64', values, [total]),
  });
  return out[USE_LITE_OUTPUT]!.data as Float32Array;
}

const batches = [
  ['where are orders added and listeners notified'],
  ['x', 'parse a money amount from text', 'def __init__(self, store):\n    self.store = store'],
  [
    'import { readFile } from "node:fs/promises";\n'.repeat(20),
    'SELECT id FROM users WHERE created_at > NOW() ORDER BY name;',
    'How do I configure request timeouts?',
    'concurrency safe key value store',
  ],
];

test('the build wrote the .ort beside the .onnx', () => {
  assert.ok(existsSync(useLiteOnnxPath()), useLiteOnnxPath());
  assert.ok(existsSync(useLiteOrtPath()), `${useLiteOrtPath()}: run the models build`);
});

test('a session from the .ort answers bit for bit what one from the .onnx does', async () => {
  const ortPath = path.join(dir, 'model.ort');
  await writeOrtModel(ort, useLiteOnnxPath(), ortPath);
  const fromOrt = await openOrtModel(ort, ortPath, options);
  assert.ok(fromOrt, 'the written .ort opens');
  const fromOnnx = await ort.InferenceSession.create(useLiteOnnxPath(), options);
  try {
    for (const texts of batches) {
      const a = await embed(fromOnnx, texts);
      const b = await embed(fromOrt.session, texts);
      assert.equal(b.length, texts.length * 512);
      assert.deepEqual(b, a, `batch of ${texts.length}`);
    }
  } finally {
    await fromOrt.session.release();
    await fromOnnx.release();
  }
});

test('no .ort, or one onnxruntime refuses: null, so the caller loads the .onnx', async () => {
  assert.equal(await openOrtModel(ort, path.join(dir, 'missing.ort'), options), null);
  const broken = path.join(dir, 'broken.ort');
  writeFileSync(broken, 'not a model');
  assert.equal(await openOrtModel(ort, broken, options), null);
});
