#!/usr/bin/env node
// Build step: converts the bundled TF.js USE-lite model to ONNX once, so the
// built-in embedder can start onnxruntime straight from a file.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { useLiteOnnxPath } from '../use-lite-files.js';
import { convertUseLiteToOnnx } from './convert-use-lite.js';

const started = performance.now();
const target = process.argv[2] ?? useLiteOnnxPath();
const { bytes } = await convertUseLiteToOnnx();
await mkdir(path.dirname(target), { recursive: true });
// Write then rename, so a concurrent reader never sees a half-written model.
const tmp = `${target}.${process.pid}.tmp`;
await writeFile(tmp, bytes);
await rename(tmp, target);
const ms = Math.round(performance.now() - started);
console.log(
  `models: wrote ${path.relative(process.cwd(), target)} (${(bytes.byteLength / 1e6).toFixed(1)} MB) in ${ms} ms`,
);
