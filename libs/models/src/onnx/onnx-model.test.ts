import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { DataType, encodeModel } from './onnx-model.js';

test('the encoding is byte for byte the one the bundled model was converted with', () => {
  // Covers every field kind: negative and large varints, float, strings (UTF-8),
  // nested messages over 127 bytes, each attribute type, metadata. The hash
  // was taken from the hand-written encoder this one replaced.
  const bytes = encodeModel({
    irVersion: 8,
    opsetVersion: 18,
    producerName: 'test',
    producerVersion: '1',
    metadata: { source: 'golden', é: 'ü' },
    graph: {
      name: 'g',
      nodes: [
        { opType: 'Add', inputs: ['x', 'bias'], outputs: ['sum'], name: 'add' },
        {
          opType: 'Op',
          inputs: ['sum'],
          outputs: ['y'],
          attributes: {
            i: { type: 'int', value: -1 },
            f: { type: 'float', value: 0.5 },
            s: { type: 'string', value: 'mode' },
            l: { type: 'ints', value: [0, 300, -2] },
            t: {
              type: 'tensor',
              value: {
                name: 'c',
                dataType: DataType.INT32,
                dims: [2],
                raw: new Uint8Array(8).fill(7),
              },
            },
          },
        },
      ],
      initializers: [
        {
          name: 'bias',
          dataType: DataType.FLOAT,
          dims: [3, 100],
          raw: new Uint8Array(1200).map((_, i) => i % 251),
        },
      ],
      inputs: [{ name: 'x', elemType: DataType.FLOAT, shape: ['n', 3] }],
      outputs: [{ name: 'y', elemType: DataType.BOOL, shape: [-1] }],
    },
  });
  assert.equal(bytes.byteLength, 1454);
  assert.equal(
    createHash('sha256').update(bytes).digest('hex'),
    'ee54ab5c0c36b68a58a6c167090db03418186309ad32eb9623c9fcc4fc253a7c',
  );
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
