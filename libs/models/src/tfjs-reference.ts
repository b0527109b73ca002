import '@tensorflow/tfjs-backend-cpu';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import type { io } from '@tensorflow/tfjs-core';
import * as tf from '@tensorflow/tfjs-core';
import { readTfGraphModel } from './convert/tf-graph.js';
import { useLiteModelJsonPath } from './use-lite-files.js';

/**
 * Test-only (uses devDependencies): runs the original TF.js USE-lite graph on
 * the CPU backend, to check the ONNX conversion against it.
 */
export interface TfjsReference {
  embedTokens(tokens: number[][]): Promise<Float32Array[]>;
  dispose(): void;
}

export async function loadTfjsReference(): Promise<TfjsReference> {
  await tf.setBackend('cpu');
  const g = await readTfGraphModel(useLiteModelJsonPath());
  const handler: io.IOHandler = {
    load: async () => ({
      modelTopology: g.modelTopology as object,
      weightSpecs: g.weightSpecs,
      weightData: g.weightData,
      format: 'graph-model',
    }),
  };
  const model = await loadGraphModel(handler);
  return {
    async embedTokens(tokens) {
      const indices: number[] = [];
      const values: number[] = [];
      tokens.forEach((ids, row) => {
        ids.forEach((id, col) => {
          indices.push(row, col);
          values.push(id);
        });
      });
      const inputs = {
        indices: tf.tensor2d(indices, [values.length, 2], 'int32'),
        values: tf.tensor1d(values, 'int32'),
      };
      const output = (await model.executeAsync(inputs)) as tf.Tensor;
      const data = (await output.data()) as Float32Array;
      const [rows, dims] = output.shape as [number, number];
      tf.dispose([inputs.indices, inputs.values, output]);
      return Array.from({ length: rows }, (_, r) => data.slice(r * dims, (r + 1) * dims));
    },
    dispose() {
      model.dispose();
    },
  };
}
