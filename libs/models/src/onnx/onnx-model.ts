import { ProtoWriter } from './protobuf-writer.js';

/**
 * In-memory ONNX graph description and its serialisation to a ModelProto.
 * Field numbers follow onnx/onnx.proto (IR version 8); only the parts a
 * plain inference graph needs are covered.
 */

/** TensorProto.DataType values used here. */
export const DataType = {
  FLOAT: 1,
  INT32: 6,
  INT64: 7,
  BOOL: 9,
} as const;
export type DataType = (typeof DataType)[keyof typeof DataType];

export interface OnnxTensor {
  name: string;
  dataType: DataType;
  dims: number[];
  /** Little-endian element bytes. */
  raw: Uint8Array;
}

export type OnnxAttribute =
  | { type: 'int'; value: number }
  | { type: 'ints'; value: number[] }
  | { type: 'float'; value: number }
  | { type: 'string'; value: string }
  | { type: 'tensor'; value: OnnxTensor };

export interface OnnxNode {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  attributes?: Record<string, OnnxAttribute>;
}

export interface OnnxValueInfo {
  name: string;
  elemType: DataType;
  /** Numbers are fixed sizes, strings are symbolic (dynamic) dimensions. */
  shape: (number | string)[];
}

export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
}

export interface OnnxModel {
  graph: OnnxGraph;
  opsetVersion: number;
  irVersion: number;
  producerName: string;
  producerVersion: string;
  /** Free-form key/value pairs stored in ModelProto.metadata_props. */
  metadata?: Record<string, string>;
}

// AttributeProto.AttributeType
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_TENSOR = 4;
const ATTR_INTS = 7;

function encodeTensor(t: OnnxTensor): ProtoWriter {
  const w = new ProtoWriter();
  for (const d of t.dims) w.varint(1, d);
  w.varint(2, t.dataType);
  w.string(8, t.name);
  w.bytes(9, t.raw);
  return w;
}

function encodeAttribute(name: string, a: OnnxAttribute): ProtoWriter {
  const w = new ProtoWriter().string(1, name);
  switch (a.type) {
    case 'float':
      w.float(2, a.value).varint(20, ATTR_FLOAT);
      break;
    case 'int':
      w.varint(3, a.value).varint(20, ATTR_INT);
      break;
    case 'string':
      w.string(4, a.value).varint(20, ATTR_STRING);
      break;
    case 'tensor':
      w.message(5, encodeTensor(a.value)).varint(20, ATTR_TENSOR);
      break;
    case 'ints':
      for (const v of a.value) w.varint(8, v);
      w.varint(20, ATTR_INTS);
      break;
  }
  return w;
}

function encodeNode(n: OnnxNode): ProtoWriter {
  const w = new ProtoWriter();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name) w.string(3, n.name);
  w.string(4, n.opType);
  for (const [k, v] of Object.entries(n.attributes ?? {})) w.message(5, encodeAttribute(k, v));
  return w;
}

function encodeValueInfo(v: OnnxValueInfo): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape) {
    const dim = new ProtoWriter();
    if (typeof d === 'number') dim.varint(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().varint(1, v.elemType).message(2, shape);
  const type = new ProtoWriter().message(1, tensorType);
  return new ProtoWriter().string(1, v.name).message(2, type);
}

function encodeGraph(g: OnnxGraph): ProtoWriter {
  const w = new ProtoWriter();
  for (const n of g.nodes) w.message(1, encodeNode(n));
  w.string(2, g.name);
  for (const t of g.initializers) w.message(5, encodeTensor(t));
  for (const i of g.inputs) w.message(11, encodeValueInfo(i));
  for (const o of g.outputs) w.message(12, encodeValueInfo(o));
  return w;
}

/** Serialises a model to ONNX protobuf bytes. */
export function encodeModel(m: OnnxModel): Uint8Array {
  const opset = new ProtoWriter().string(1, '').varint(2, m.opsetVersion);
  const w = new ProtoWriter()
    .varint(1, m.irVersion)
    .string(2, m.producerName)
    .string(3, m.producerVersion)
    .message(7, encodeGraph(m.graph))
    .message(8, opset);
  for (const [key, value] of Object.entries(m.metadata ?? {})) {
    w.message(14, new ProtoWriter().string(1, key).string(2, value));
  }
  return w.finish();
}
