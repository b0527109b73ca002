import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

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

const { Varint, Bit32, LengthDelimited } = WireType;

/** Writes field `field` as a nested message whose fields `body` writes. */
function message(w: BinaryWriter, field: number, body: () => void): void {
  w.tag(field, LengthDelimited).fork();
  body();
  w.join();
}

// Every integer field is written as int64: negative values take ten bytes of two's complement.
function writeTensor(w: BinaryWriter, t: OnnxTensor): void {
  for (const d of t.dims) w.tag(1, Varint).int64(d);
  w.tag(2, Varint).int64(t.dataType);
  w.tag(8, LengthDelimited).string(t.name);
  w.tag(9, LengthDelimited).bytes(t.raw);
}

function writeAttribute(w: BinaryWriter, name: string, a: OnnxAttribute): void {
  w.tag(1, LengthDelimited).string(name);
  switch (a.type) {
    case 'float':
      w.tag(2, Bit32).float(a.value).tag(20, Varint).int64(ATTR_FLOAT);
      break;
    case 'int':
      w.tag(3, Varint).int64(a.value).tag(20, Varint).int64(ATTR_INT);
      break;
    case 'string':
      w.tag(4, LengthDelimited).string(a.value).tag(20, Varint).int64(ATTR_STRING);
      break;
    case 'tensor':
      message(w, 5, () => writeTensor(w, a.value));
      w.tag(20, Varint).int64(ATTR_TENSOR);
      break;
    case 'ints':
      for (const v of a.value) w.tag(8, Varint).int64(v);
      w.tag(20, Varint).int64(ATTR_INTS);
      break;
  }
}

function writeNode(w: BinaryWriter, n: OnnxNode): void {
  for (const i of n.inputs) w.tag(1, LengthDelimited).string(i);
  for (const o of n.outputs) w.tag(2, LengthDelimited).string(o);
  if (n.name) w.tag(3, LengthDelimited).string(n.name);
  w.tag(4, LengthDelimited).string(n.opType);
  for (const [k, v] of Object.entries(n.attributes ?? {})) {
    message(w, 5, () => writeAttribute(w, k, v));
  }
}

function writeValueInfo(w: BinaryWriter, v: OnnxValueInfo): void {
  w.tag(1, LengthDelimited).string(v.name);
  // TypeProto { tensor_type: { elem_type, shape: { dim: [...] } } }
  message(w, 2, () =>
    message(w, 1, () => {
      w.tag(1, Varint).int64(v.elemType);
      message(w, 2, () => {
        for (const d of v.shape) {
          message(w, 1, () => {
            if (typeof d === 'number') w.tag(1, Varint).int64(d);
            else w.tag(2, LengthDelimited).string(d);
          });
        }
      });
    }),
  );
}

function writeGraph(w: BinaryWriter, g: OnnxGraph): void {
  for (const n of g.nodes) message(w, 1, () => writeNode(w, n));
  w.tag(2, LengthDelimited).string(g.name);
  for (const t of g.initializers) message(w, 5, () => writeTensor(w, t));
  for (const i of g.inputs) message(w, 11, () => writeValueInfo(w, i));
  for (const o of g.outputs) message(w, 12, () => writeValueInfo(w, o));
}

/** Serialises a model to ONNX protobuf bytes. */
export function encodeModel(m: OnnxModel): Uint8Array {
  const w = new BinaryWriter()
    .tag(1, Varint)
    .int64(m.irVersion)
    .tag(2, LengthDelimited)
    .string(m.producerName)
    .tag(3, LengthDelimited)
    .string(m.producerVersion);
  message(w, 7, () => writeGraph(w, m.graph));
  message(w, 8, () => w.tag(1, LengthDelimited).string('').tag(2, Varint).int64(m.opsetVersion));
  for (const [key, value] of Object.entries(m.metadata ?? {})) {
    message(w, 14, () =>
      w.tag(1, LengthDelimited).string(key).tag(2, LengthDelimited).string(value),
    );
  }
  return w.finish();
}
