/**
 * The built-in model in onnxruntime's own format (.ort). Creating a session
 * from the .onnx parses ~28 MB of protobuf and copies every weight into
 * onnxruntime's memory, about 100 ms of CPU on the 2-core AMD EPYC: most of
 * a model load, which a cold `codesift search` of a question pays in full.
 * From the .ort bytes, with the weights used where they lie in the buffer,
 * the same session takes about half that, and answers bit for bit the same
 * (ort-model.test.ts compares them).
 *
 * The .ort holds the graph after onnxruntime's 'extended' optimizations
 * (fusions that do not depend on the CPU); the session still applies the
 * rest ('all') when it opens, as it does for the .onnx.
 */
import { readFile, rename, rm } from 'node:fs/promises';
import type { InferenceSession } from 'onnxruntime-node';

type Ort = typeof import('onnxruntime-node');

/**
 * Writes `ortPath` from the .onnx at `onnxPath` (the build step, after the
 * conversion): write then rename, so a concurrent reader never sees half.
 */
export async function writeOrtModel(ort: Ort, onnxPath: string, ortPath: string): Promise<void> {
  const tmp = `${ortPath}.${process.pid}.tmp.ort`;
  try {
    const session = await ort.InferenceSession.create(onnxPath, {
      graphOptimizationLevel: 'extended',
      optimizedModelFilePath: tmp,
    });
    await session.release();
    await rename(tmp, ortPath);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** A session over .ort bytes: `bytes` must stay reachable as long as the session lives. */
export interface OrtModelSession {
  session: InferenceSession;
  bytes: Uint8Array;
}

/**
 * Opens a session from the .ort file with `options`, or null when there is
 * no such file or onnxruntime refuses it (written by another release): the
 * caller then loads the .onnx.
 */
export async function openOrtModel(
  ort: Ort,
  ortPath: string,
  options: InferenceSession.SessionOptions,
): Promise<OrtModelSession | null> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(ortPath);
  } catch {
    return null;
  }
  const session = extraSession(options);
  try {
    const created = await ort.InferenceSession.create(bytes, {
      ...options,
      extra: {
        ...options.extra,
        session: {
          ...session,
          // The graph and its weights are read in place: no copy of the 28 MB.
          use_ort_model_bytes_directly: '1',
          use_ort_model_bytes_for_initializers: '1',
        },
      },
    });
    return { session: created, bytes };
  } catch {
    return null;
  }
}

function extraSession(options: InferenceSession.SessionOptions): Record<string, unknown> {
  const extra = options.extra as { session?: Record<string, unknown> } | undefined;
  return extra?.session ?? {};
}
