import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Reader for TensorFlow.js "graph model" files (model.json + binary weight
 * shards). Only float32 and int32 weights without quantisation occur in the
 * USE-lite model, so only those are supported.
 */

export interface TfAttrValue {
  type?: number | string;
  i?: string | number;
  f?: number;
  b?: boolean;
  s?: string | number[];
  list?: { i?: (string | number)[]; s?: string[]; type?: (number | string)[] };
  shape?: { dim?: { size: string | number }[]; unknownRank?: boolean };
  tensor?: unknown;
}

export interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttrValue>;
}

export interface TfWeightSpec {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32';
}

export interface TfWeight {
  dtype: 'float32' | 'int32';
  shape: number[];
  data: Float32Array | Int32Array;
}

export interface TfGraphModel {
  nodes: TfNode[];
  weights: Map<string, TfWeight>;
  /** The raw pieces, for handing the same model to TensorFlow.js. */
  modelTopology: unknown;
  weightSpecs: TfWeightSpec[];
  weightData: ArrayBuffer;
}

interface ModelJson {
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: (TfWeightSpec & { quantization?: unknown })[] }[];
}

export async function readTfGraphModel(modelJsonPath: string): Promise<TfGraphModel> {
  const dir = path.dirname(modelJsonPath);
  const json = JSON.parse(await readFile(modelJsonPath, 'utf8')) as ModelJson;
  const weights = new Map<string, TfWeight>();
  const weightSpecs: TfWeightSpec[] = [];
  const buffers: Buffer[] = [];
  for (const group of json.weightsManifest) {
    const shards = await Promise.all(group.paths.map((p) => readFile(path.join(dir, p))));
    const groupBytes = Buffer.concat(shards);
    let offset = 0;
    for (const spec of group.weights) {
      if (spec.quantization !== undefined) {
        throw new Error(`weight ${spec.name}: quantised weights are not supported`);
      }
      if (spec.dtype !== 'float32' && spec.dtype !== 'int32') {
        throw new Error(`weight ${spec.name}: dtype ${spec.dtype} is not supported`);
      }
      const count = spec.shape.reduce((a, b) => a * b, 1);
      const bytes = groupBytes.subarray(offset, offset + count * 4);
      // Copy into an aligned buffer: shard offsets are not guaranteed to be 4-aligned.
      const aligned = new Uint8Array(bytes).buffer;
      weights.set(spec.name, {
        dtype: spec.dtype,
        shape: spec.shape,
        data: spec.dtype === 'float32' ? new Float32Array(aligned) : new Int32Array(aligned),
      });
      weightSpecs.push({ name: spec.name, shape: spec.shape, dtype: spec.dtype });
      offset += count * 4;
    }
    if (offset !== groupBytes.byteLength) {
      throw new Error(
        `weights manifest covers ${offset} bytes, shards hold ${groupBytes.byteLength}`,
      );
    }
    buffers.push(groupBytes);
  }
  const all = Buffer.concat(buffers);
  const weightData = all.buffer.slice(
    all.byteOffset,
    all.byteOffset + all.byteLength,
  ) as ArrayBuffer;
  return {
    nodes: json.modelTopology.node,
    weights,
    modelTopology: json.modelTopology,
    weightSpecs,
    weightData,
  };
}
