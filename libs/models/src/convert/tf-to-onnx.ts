import {
  DataType,
  type OnnxAttribute,
  type OnnxGraph,
  type OnnxNode,
  type OnnxTensor,
  type OnnxValueInfo,
} from '../onnx/onnx-model.js';
import type { TfAttrValue, TfGraphModel, TfNode, TfWeight } from './tf-graph.js';

/**
 * Op-by-op translation of a TensorFlow graph (as stored by TF.js) into an
 * ONNX graph (opset 18). Every TF op becomes the ONNX op(s) with the same
 * semantics, so the converted graph computes exactly what TF.js computes,
 * dynamic-shape tricks (Where/GatherNd/ScatterNd compaction) included.
 *
 * Integer tensors: TF mixes int32 and int64, ONNX shape operators want
 * int64. Every TF integer tensor is therefore int64 in the ONNX graph; the
 * values all fit, so nothing observable changes.
 */

export const ONNX_OPSET = 18;

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

// TensorFlow DataType enum values that occur in graph models.
const TF_FLOAT = 1;
const TF_INT32 = 3;
const TF_INT64 = 9;
const TF_BOOL = 10;

const TF_DTYPE_NAMES: Record<string, number> = {
  DT_FLOAT: TF_FLOAT,
  DT_INT32: TF_INT32,
  DT_INT64: TF_INT64,
  DT_BOOL: TF_BOOL,
};

function onnxType(tfType: number | string | undefined, where: string): DataType {
  const t = typeof tfType === 'string' ? TF_DTYPE_NAMES[tfType] : tfType;
  switch (t) {
    case TF_FLOAT:
      return DataType.FLOAT;
    case TF_INT32:
    case TF_INT64:
      return DataType.INT64;
    case TF_BOOL:
      return DataType.BOOL;
    default:
      throw new Error(`${where}: unsupported TF dtype ${String(tfType)}`);
  }
}

function int64Raw(values: readonly (number | bigint)[]): Uint8Array {
  const arr = new BigInt64Array(values.length);
  values.forEach((v, i) => {
    arr[i] = BigInt(v);
  });
  return new Uint8Array(arr.buffer);
}

function attrInt(node: TfNode, key: string, fallback?: number): number {
  const v = node.attr?.[key];
  if (v?.i !== undefined) return Number(v.i);
  if (fallback !== undefined) return fallback;
  throw new Error(`${node.name}: missing int attribute ${key}`);
}

function attrBool(node: TfNode, key: string): boolean {
  return node.attr?.[key]?.b === true;
}

function attrString(v: TfAttrValue | undefined): string | undefined {
  if (v?.s === undefined) return undefined;
  if (typeof v.s === 'string') {
    // JSON protobuf encodes bytes as base64.
    return Buffer.from(v.s, 'base64').toString('utf8');
  }
  return String.fromCharCode(...v.s);
}

function attrInts(node: TfNode, key: string): number[] {
  return (node.attr?.[key]?.list?.i ?? []).map(Number);
}

export interface ConvertOptions {
  /** Name of the graph output in the ONNX model. */
  outputName?: string;
}

export interface ConvertResult {
  graph: OnnxGraph;
  /** TF op name -> count, for reports. */
  opCounts: Record<string, number>;
}

class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxTensor[] = [];
  readonly inputs: OnnxValueInfo[] = [];
  private readonly constCache = new Map<string, string>();
  private counter = 0;

  fresh(base: string): string {
    this.counter += 1;
    return `${base}__${this.counter}`;
  }

  add(
    opType: string,
    inputs: string[],
    outputs: string[],
    attributes?: Record<string, OnnxAttribute>,
  ): void {
    const node: OnnxNode = { opType, inputs, outputs, name: outputs[0] ?? opType };
    if (attributes) node.attributes = attributes;
    this.nodes.push(node);
  }

  /** Adds (or reuses) a 1-D or scalar int64 initializer. */
  int64Const(values: readonly (number | bigint)[], scalar = false): string {
    const key = `${scalar ? 's' : 'v'}:${values.join(',')}`;
    const cached = this.constCache.get(key);
    if (cached) return cached;
    const name = `const_i64_${this.constCache.size}`;
    this.initializers.push({
      name,
      dataType: DataType.INT64,
      dims: scalar ? [] : [values.length],
      raw: int64Raw(values),
    });
    this.constCache.set(key, name);
    return name;
  }
}

/** ONNX value name for a TF input reference ("node", "node:1", "^ctrl"). */
function valueName(ref: string): string {
  const m = /^(.*):(\d+)$/.exec(ref);
  if (m && m[2] !== '0') return `${m[1]}:${m[2]}`;
  return m ? m[1]! : ref;
}

function producerName(ref: string): string {
  return ref.replace(/:\d+$/, '');
}

export function convertTfGraphToOnnx(
  model: TfGraphModel,
  options: ConvertOptions = {},
): ConvertResult {
  const b = new GraphBuilder();
  const byName = new Map(model.nodes.map((n) => [n.name, n]));
  const opCounts: Record<string, number> = {};

  const constOf = (ref: string): TfWeight | undefined => {
    const node = byName.get(producerName(ref));
    return node?.op === 'Const' ? model.weights.get(node.name) : undefined;
  };
  const constInts = (ref: string, user: TfNode): number[] => {
    const c = constOf(ref);
    if (c?.dtype !== 'int32') {
      throw new Error(`${user.name}: input ${ref} must be an int constant`);
    }
    return Array.from(c.data);
  };
  /** Static rank of a tensor, for the few ops that need it (BatchMatMul adjoints). */
  const rankOf = (ref: string): number => {
    const node = byName.get(producerName(ref));
    if (!node) throw new Error(`unknown tensor ${ref}`);
    if (node.op === 'Const') return model.weights.get(node.name)?.shape.length ?? 0;
    if (node.op === 'Transpose') return constInts(node.input![1]!, node).length;
    if (['Mul', 'Add', 'Sub', 'RealDiv'].includes(node.op)) {
      return Math.max(...node.input!.slice(0, 2).map(rankOf));
    }
    if (['Softmax', 'Relu', 'Tanh', 'Identity'].includes(node.op)) return rankOf(node.input![0]!);
    if (node.op === 'BatchMatMul') return rankOf(node.input![0]!);
    throw new Error(`cannot infer the rank of ${ref} (op ${node.op})`);
  };
  const swapLastTwo = (ref: string, user: TfNode): string => {
    const rank = rankOf(ref);
    const perm = Array.from({ length: rank }, (_, i) => i);
    [perm[rank - 2], perm[rank - 1]] = [perm[rank - 1]!, perm[rank - 2]!];
    const out = b.fresh(`${user.name}/adj`);
    b.add('Transpose', [valueName(ref)], [out], { perm: { type: 'ints', value: perm } });
    return out;
  };

  // Topological order (TF.js usually stores nodes sorted, but do not rely on it).
  const order: TfNode[] = [];
  const state = new Map<string, 1 | 2>();
  const visit = (n: TfNode): void => {
    const s = state.get(n.name);
    if (s === 2) return;
    if (s === 1) throw new Error(`graph has a cycle through ${n.name}`);
    state.set(n.name, 1);
    for (const ref of n.input ?? []) {
      const dep = byName.get(producerName(ref.replace(/^\^/, '')));
      if (!dep) throw new Error(`${n.name}: unknown input ${ref}`);
      visit(dep);
    }
    state.set(n.name, 2);
    order.push(n);
  };
  for (const n of model.nodes) visit(n);

  const consumed = new Set<string>();
  for (const n of model.nodes)
    for (const ref of n.input ?? []) consumed.add(producerName(ref.replace(/^\^/, '')));

  for (const node of order) {
    opCounts[node.op] = (opCounts[node.op] ?? 0) + 1;
    const inputs = (node.input ?? []).filter((r) => !r.startsWith('^'));
    const x = inputs.map(valueName);
    const out = node.name;
    const simple = (op: string, attrs?: Record<string, OnnxAttribute>): void =>
      b.add(op, x, [out], attrs);
    const reduce = (op: string): void => {
      const axes = b.int64Const(constInts(inputs[1]!, node));
      b.add(op, [x[0]!, axes], [out], {
        keepdims: { type: 'int', value: attrBool(node, 'keep_dims') ? 1 : 0 },
      });
    };

    switch (node.op) {
      case 'Const': {
        const w = model.weights.get(node.name);
        if (!w) throw new Error(`${node.name}: constant has no weight data`);
        b.initializers.push(
          w.dtype === 'float32'
            ? {
                name: out,
                dataType: DataType.FLOAT,
                dims: w.shape,
                raw: new Uint8Array(w.data.buffer, w.data.byteOffset, w.data.byteLength),
              }
            : {
                name: out,
                dataType: DataType.INT64,
                dims: w.shape,
                raw: int64Raw(Array.from(w.data)),
              },
        );
        break;
      }
      case 'Placeholder': {
        const dims = node.attr?.shape?.shape?.dim ?? [];
        b.inputs.push({
          name: out,
          elemType: onnxType(node.attr?.dtype?.type, node.name),
          shape: dims.map((d, i) => (Number(d.size) < 0 ? `${out}_dim${i}` : Number(d.size))),
        });
        break;
      }
      case 'Identity':
        simple('Identity');
        break;
      case 'Add':
      case 'BiasAdd':
        if (node.op === 'BiasAdd') {
          const fmt = attrString(node.attr?.data_format);
          if (fmt !== undefined && fmt !== 'NHWC')
            throw new Error(`${node.name}: data_format ${fmt}`);
        }
        simple('Add');
        break;
      case 'Sub':
        simple('Sub');
        break;
      case 'Mul':
        simple('Mul');
        break;
      case 'RealDiv':
        simple('Div');
        break;
      case 'Maximum':
        simple('Max');
        break;
      case 'Less':
        simple('Less');
        break;
      case 'Greater':
        simple('Greater');
        break;
      case 'LogicalNot':
        simple('Not');
        break;
      case 'Sin':
      case 'Cos':
      case 'Relu':
      case 'Tanh':
        simple(node.op);
        break;
      case 'Softmax':
        // TF softmax normalises over the last axis; so does ONNX opset >= 13 with axis -1.
        simple('Softmax', { axis: { type: 'int', value: -1 } });
        break;
      case 'Square':
        b.add('Mul', [x[0]!, x[0]!], [out]);
        break;
      case 'Rsqrt': {
        const root = b.fresh(`${out}/sqrt`);
        b.add('Sqrt', [x[0]!], [root]);
        b.add('Reciprocal', [root], [out]);
        break;
      }
      case 'Shape':
        simple('Shape');
        break;
      case 'Cast':
        b.add('Cast', [x[0]!], [out], {
          to: { type: 'int', value: onnxType(node.attr?.DstT?.type, node.name) },
        });
        break;
      case 'Where': {
        if (inputs.length !== 1)
          throw new Error(`${node.name}: only single-input Where is supported`);
        // TF returns [n, rank] coordinates; ONNX NonZero returns [rank, n].
        const nz = b.fresh(`${out}/nonzero`);
        b.add('NonZero', [x[0]!], [nz]);
        b.add('Transpose', [nz], [out], { perm: { type: 'ints', value: [1, 0] } });
        break;
      }
      case 'Reshape':
        b.add('Reshape', [x[0]!, x[1]!], [out]);
        break;
      case 'GatherV2': {
        const axis = constInts(inputs[2]!, node)[0]!;
        if (attrInt(node, 'batch_dims', 0) !== 0) throw new Error(`${node.name}: batch_dims`);
        b.add('Gather', [x[0]!, x[1]!], [out], { axis: { type: 'int', value: axis } });
        break;
      }
      case 'GatherNd':
        simple('GatherND');
        break;
      case 'Max':
        reduce('ReduceMax');
        break;
      case 'Sum':
        reduce('ReduceSum');
        break;
      case 'Mean':
        reduce('ReduceMean');
        break;
      case 'Prod':
        reduce('ReduceProd');
        break;
      case 'SparseToDense': {
        // dense = fill(shape, default); dense[indices] = values
        const [indices, shape, values, fill] = x as [string, string, string, string];
        const base = b.fresh(`${out}/fill`);
        b.add('Expand', [fill, shape], [base]);
        b.add('ScatterND', [base, indices, values], [out]);
        break;
      }
      case 'ScatterNd': {
        const [indices, updates, shape] = x as [string, string, string];
        const dtype = onnxType(node.attr?.T?.type, node.name);
        const zero: OnnxTensor = {
          name: 'value',
          dataType: dtype,
          dims: [1],
          raw: dtype === DataType.FLOAT ? new Uint8Array(4) : int64Raw([0]),
        };
        const zeros = b.fresh(`${out}/zeros`);
        b.add('ConstantOfShape', [shape], [zeros], { value: { type: 'tensor', value: zero } });
        // TF ScatterNd adds duplicate indices; the graph's indices come from Where and are unique.
        b.add('ScatterND', [zeros, indices, updates], [out]);
        break;
      }
      case 'ExpandDims': {
        const axes = b.int64Const(constInts(inputs[1]!, node));
        b.add('Unsqueeze', [x[0]!, axes], [out]);
        break;
      }
      case 'Squeeze': {
        const dims = attrInts(node, 'squeeze_dims');
        if (dims.length === 0) b.add('Squeeze', [x[0]!], [out]);
        else b.add('Squeeze', [x[0]!, b.int64Const(dims)], [out]);
        break;
      }
      case 'ConcatV2': {
        const n = inputs.length - 1;
        const axis = constInts(inputs[n]!, node)[0]!;
        b.add('Concat', x.slice(0, n), [out], { axis: { type: 'int', value: axis } });
        break;
      }
      case 'Pack': {
        const axis = attrInt(node, 'axis', 0);
        const axes = b.int64Const([axis]);
        const parts = x.map((v, i) => {
          const u = b.fresh(`${out}/unsqueeze${i}`);
          b.add('Unsqueeze', [v, axes], [u]);
          return u;
        });
        b.add('Concat', parts, [out], { axis: { type: 'int', value: axis } });
        break;
      }
      case 'Transpose': {
        const perm = constInts(inputs[1]!, node);
        b.add('Transpose', [x[0]!], [out], { perm: { type: 'ints', value: perm } });
        break;
      }
      case 'SplitV': {
        const sizes = constInts(inputs[1]!, node);
        const axis = constInts(inputs[2]!, node)[0]!;
        if (sizes.some((s) => s < 0))
          throw new Error(`${node.name}: inferred split sizes are not supported`);
        const outs = sizes.map((_, i) => (i === 0 ? out : `${out}:${i}`));
        b.add('Split', [x[0]!, b.int64Const(sizes)], outs, { axis: { type: 'int', value: axis } });
        break;
      }
      case 'StridedSlice':
        convertStridedSlice(b, node, x[0]!, {
          begin: constInts(inputs[1]!, node),
          end: constInts(inputs[2]!, node),
          strides: constInts(inputs[3]!, node),
        });
        break;
      case 'Slice': {
        const begin = constInts(inputs[1]!, node);
        const size = constInts(inputs[2]!, node);
        const ends = begin.map((s, i) => (size[i] === -1 ? INT64_MAX : BigInt(s + size[i]!)));
        const axes = begin.map((_, i) => i);
        b.add('Slice', [x[0]!, b.int64Const(begin), b.int64Const(ends), b.int64Const(axes)], [out]);
        break;
      }
      case 'Range':
        simple('Range');
        break;
      case 'MatMul':
      case 'BatchMatMul': {
        const [ta, tb] =
          node.op === 'MatMul'
            ? [attrBool(node, 'transpose_a'), attrBool(node, 'transpose_b')]
            : [attrBool(node, 'adj_x'), attrBool(node, 'adj_y')];
        const a = ta ? swapLastTwo(inputs[0]!, node) : x[0]!;
        const bb = tb ? swapLastTwo(inputs[1]!, node) : x[1]!;
        b.add('MatMul', [a, bb], [out]);
        break;
      }
      case 'Conv2D':
        convertPointwiseConv(b, node, x[0]!, constOf(inputs[1]!));
        break;
      default:
        throw new Error(`${node.name}: TF op ${node.op} has no ONNX mapping`);
    }
  }

  const sinks = model.nodes.filter((n) => n.op !== 'Const' && !consumed.has(n.name));
  if (sinks.length !== 1) {
    throw new Error(`expected one graph output, found ${sinks.map((s) => s.name).join(', ')}`);
  }
  const outputName = options.outputName ?? 'output';
  b.add('Identity', [sinks[0]!.name], [outputName]);

  // Constants read at conversion time (axes, permutations, 4-D conv kernels)
  // have no ONNX consumer; leaving them out keeps the file small.
  const used = new Set(b.nodes.flatMap((n) => n.inputs));
  return {
    graph: {
      name: 'converted',
      nodes: b.nodes,
      initializers: b.initializers.filter((t) => used.has(t.name)),
      inputs: b.inputs,
      outputs: [{ name: outputName, elemType: DataType.FLOAT, shape: ['batch', 'features'] }],
    },
    opCounts,
  };
}

function convertStridedSlice(
  b: GraphBuilder,
  node: TfNode,
  input: string,
  spec: { begin: number[]; end: number[]; strides: number[] },
): void {
  const mask = (k: string): number => attrInt(node, k, 0);
  if (mask('ellipsis_mask') !== 0 || mask('new_axis_mask') !== 0) {
    throw new Error(`${node.name}: ellipsis/new-axis masks are not supported`);
  }
  const beginMask = mask('begin_mask');
  const endMask = mask('end_mask');
  const shrinkMask = mask('shrink_axis_mask');
  const starts: bigint[] = [];
  const ends: bigint[] = [];
  const steps: number[] = [];
  const shrink: number[] = [];
  spec.begin.forEach((begin, i) => {
    const stride = spec.strides[i] ?? 1;
    const bit = 1 << i;
    if (shrinkMask & bit) {
      // A single element; begin -1 means "the last one", whose end is "to the end".
      starts.push(BigInt(begin));
      ends.push(begin === -1 ? INT64_MAX : BigInt(begin + 1));
      steps.push(1);
      shrink.push(i);
      return;
    }
    starts.push(beginMask & bit ? (stride > 0 ? 0n : INT64_MAX) : BigInt(begin));
    ends.push(endMask & bit ? (stride > 0 ? INT64_MAX : INT64_MIN) : BigInt(spec.end[i]!));
    steps.push(stride);
  });
  const axes = spec.begin.map((_, i) => i);
  const sliced = shrink.length ? b.fresh(`${node.name}/slice`) : node.name;
  b.add(
    'Slice',
    [input, b.int64Const(starts), b.int64Const(ends), b.int64Const(axes), b.int64Const(steps)],
    [sliced],
  );
  if (shrink.length) b.add('Squeeze', [sliced, b.int64Const(shrink)], [node.name]);
}

/**
 * A 1x1, stride-1 NHWC convolution is a matrix product over the channel
 * axis; the transformer uses it for its projections.
 */
function convertPointwiseConv(
  b: GraphBuilder,
  node: TfNode,
  input: string,
  filter: TfWeight | undefined,
): void {
  if (filter?.dtype !== 'float32') throw new Error(`${node.name}: filter must be a float constant`);
  const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
  const ones = (k: string): boolean => {
    const v = attrInts(node, k);
    return v.length === 0 || v.every((d) => d === 1);
  };
  const fmt = attrString(node.attr?.data_format) ?? 'NHWC';
  if (kh !== 1 || kw !== 1 || !ones('strides') || !ones('dilations') || fmt !== 'NHWC') {
    throw new Error(`${node.name}: only 1x1 stride-1 NHWC Conv2D is supported`);
  }
  const weight = `${node.name}/kernel_2d`;
  b.initializers.push({
    name: weight,
    dataType: DataType.FLOAT,
    dims: [cin, cout],
    raw: new Uint8Array(filter.data.buffer, filter.data.byteOffset, filter.data.byteLength),
  });
  b.add('MatMul', [input, weight], [node.name]);
}
