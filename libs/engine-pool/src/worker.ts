// One search worker thread: opens its own engine (its own SQLite connection,
// model session and vector index) and answers the pool's search requests.
// Searches run concurrently inside the worker too, as on the main thread.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { toWire } from '@codesift/core';
import type { SearchEngine } from '@codesift/search';
import { startTelemetry, type Telemetry, withRemoteParent } from '@codesift/telemetry';
import type { EngineFactory, FromWorker, ToWorker, WorkerInit } from './protocol.js';

if (!parentPort) throw new Error('engine-pool worker must run in a worker thread');
const port: MessagePort = parentPort;

const send = (m: FromWorker) => port.postMessage(m);
const running = new Map<number, AbortController>();

async function open(factory: EngineFactory): Promise<SearchEngine> {
  const mod = (await import(factory.module)) as Record<string, unknown>;
  const fn = mod[factory.exportName];
  if (typeof fn !== 'function') {
    throw new Error(`${factory.module} has no function '${factory.exportName}'`);
  }
  return (await fn(factory.options)) as SearchEngine;
}

const init = workerData as WorkerInit;
// Tracing that cannot start here only loses this thread's spans, not its searches.
const telemetry: Telemetry | undefined = init.telemetry
  ? await startTelemetry(init.telemetry).catch(() => undefined)
  : undefined;
// A failed open is reported as a message, not thrown: a thrown error would
// race it as the thread's 'error' event and lose the CodesiftError's code.
const engine = await open(init.factory).catch((err: unknown) => {
  send({ type: 'open-failed', error: toWire(err) });
  void telemetry?.shutdown();
  port.close();
  return undefined;
});
if (engine) {
  send({ type: 'ready' });
  serve(engine);
}

function serve(engine: SearchEngine): void {
  port.on('message', (m: ToWorker) => {
    switch (m.type) {
      case 'search': {
        const abort = new AbortController();
        running.set(m.id, abort);
        withRemoteParent(m.trace, () => engine.search({ ...m.request, signal: abort.signal }))
          .then((response) => send({ type: 'result', id: m.id, response }))
          .catch((err: unknown) => send({ type: 'failed', id: m.id, error: toWire(err) }))
          .finally(() => running.delete(m.id));
        break;
      }
      case 'cancel':
        running.get(m.id)?.abort(new DOMException('the search was cancelled', 'AbortError'));
        break;
      case 'close':
        void engine
          .close()
          .catch(() => undefined)
          // The thread ends next: its batched spans go out first.
          .then(() => telemetry?.shutdown())
          .then(() => {
            send({ type: 'closed' });
            port.close();
          });
        break;
    }
  });
}
