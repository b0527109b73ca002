import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { DataType, encodeModel } from './onnx-model.js';
import { ProtoWriter } from './protobuf-writer.js';

test('protobuf writer encodes varints, negatives, floats and strings', () => {
  assert.deepEqual([...new ProtoWriter().varint(1, 300).finish()], [0x08, 0xac, 0x02]);
  // Negative int64 is ten bytes of two's complement.
  assert.deepEqual(
    [...new ProtoWriter().varint(1, -1).finish()],
    [0x08, ...Array(9).fill(0xff), 0x01],
  );
  assert.deepEqual([...new ProtoWriter().float(2, 1).finish()], [0x15, 0, 0, 0x80, 0x3f]);
  assert.deepEqual([...new ProtoWriter().string(3, 'hi').finish()], [0x1a, 2, 0x68, 0x69]);
});

test('an encoded model loads and runs in onnxruntime', async () => {
  const bias = new Float32Array([1, 2, 3]);
  const bytes = encodeModel({
    irVersion: 8,
    opsetVersion: 18,
    producerName: 'test',
    producerVersion: '1',
    graph: {
      name: 'g',
      nodes: [
        { opType: 'Add', inputs: ['x', 'bias'], outputs: ['sum'] },
        {
          opType: 'ReduceSum',
          inputs: ['sum', 'axes'],
          outputs: ['y'],
          attributes: { keepdims: { type: 'int', value: 0 } },
        },
      ],
      initializers: [
        { name: 'bias', dataType: DataType.FLOAT, dims: [3], raw: new Uint8Array(bias.buffer) },
        {
          name: 'axes',
          dataType: DataType.INT64,
          dims: [1],
          raw: new Uint8Array(new BigInt64Array([-1n]).buffer),
        },
      ],
      inputs: [{ name: 'x', elemType: DataType.FLOAT, shape: ['n', 3] }],
      outputs: [{ name: 'y', elemType: DataType.FLOAT, shape: ['n'] }],
    },
  });
  const session = await ort.InferenceSession.create(bytes);
  const { y } = await session.run({
    x: new ort.Tensor('float32', new Float32Array([0, 0, 0, 1, 1, 1]), [2, 3]),
  });
  assert.deepEqual([...(y!.data as Float32Array)], [6, 9]);
  await session.release();
});
