/**
 * The embedding worker thread: owns the onnxruntime session and the
 * tokenizer, so a batch's tokenizing and inference (synchronous native work
 * in onnxruntime-node) never block the main thread's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '@codesift/core';
import { createBuiltinEmbedder } from './builtin-embedder.js';
import type { EmbedWorkerInit, FromEmbedWorker, ToEmbedWorker } from './embed-protocol.js';
import type { Embedder } from './embedder.js';

if (!parentPort) throw new Error('embed-worker.js must run as a worker thread');
const port = parentPort;
const post = (m: FromEmbedWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);
const init = workerData as EmbedWorkerInit;

async function serve(): Promise<void> {
  let embedder: Embedder;
  try {
    embedder = await createBuiltinEmbedder({ ...init, thread: 'main' });
  } catch (err) {
    post({ type: 'load-failed', error: toWire(err) });
    // Nothing else keeps the thread alive once its port is closed: it ends.
    port.close();
    return;
  }
  const inFlight = new Set<Promise<void>>();
  port.on('message', (m: ToEmbedWorker) => {
    if (m.type === 'embed') {
      // Not awaited: concurrent requests share the in-thread embedder's batches.
      const job = embedder.embed(m.texts).then(
        (vectors) => {
          // Each vector owns its buffer (the embedder copies rows out), so moving them costs nothing.
          const buffers = new Set(vectors.map((v) => v.buffer as ArrayBuffer));
          post({ type: 'vectors', id: m.id, vectors }, [...buffers]);
        },
        (err: unknown) => post({ type: 'embed-failed', id: m.id, error: toWire(err) }),
      );
      inFlight.add(job);
      void job.finally(() => inFlight.delete(job));
    } else if (m.type === 'close') {
      void (async () => {
        await Promise.allSettled([...inFlight]);
        await embedder.close();
        port.close();
      })();
    }
  });
  post({ type: 'ready', maxBatch: embedder.maxBatch });
}

await serve();
