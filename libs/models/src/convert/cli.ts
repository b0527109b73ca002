#!/usr/bin/env node
// Build step: converts the bundled TF.js USE-lite model to ONNX once, so the
// built-in embedder can start onnxruntime straight from a file.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeOrtModel } from '../ort-model.js';
import { useLiteOnnxPath, useLiteOrtPath } from '../use-lite-files.js';
import { convertUseLiteToOnnx } from './convert-use-lite.js';

const started = performance.now();
const target = process.argv[2] ?? useLiteOnnxPath();
const { bytes } = await convertUseLiteToOnnx();
await mkdir(path.dirname(target), { recursive: true });
// Write then rename, so a concurrent reader never sees a half-written model.
const tmp = `${target}.${process.pid}.tmp`;
await writeFile(tmp, bytes);
await rename(tmp, target);
// The same model in onnxruntime's format, which a session opens in half the CPU
// (ort-model.ts); only beside the default location, where the embedder looks.
if (process.argv[2] === undefined) {
  await writeOrtModel(await import('onnxruntime-node'), target, useLiteOrtPath());
}
const ms = Math.round(performance.now() - started);
console.log(
  `models: wrote ${path.relative(process.cwd(), target)} (${(bytes.byteLength / 1e6).toFixed(1)} MB) in ${ms} ms`,
);
