import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Embedder } from '@codesift/models';
import { longTextsInWorker } from './long-text-embedder.js';
import { hashEmbedder } from './testing/fixtures.js';

/** A fake model that logs which of the two answered, and whether it was closed. */
function loggingModel(label: string, log: string[], fail = false): Embedder {
  const model = hashEmbedder('test:hash-16', 16);
  return {
    ...model,
    embed: async (texts: string[]) => {
      log.push(`${label} ${texts.length}`);
      if (fail) throw new Error(`${label} died`);
      return model.embed(texts);
    },
    close: async () => {
      log.push(`${label} closed`);
    },
  };
}

const LONG = 'x'.repeat(40);
const opts = (start: () => Promise<Embedder>) => ({ startWorker: start, minChars: 32 });

describe('longTextsInWorker', () => {
  it('keeps short texts on the calling thread and never starts the worker for them', async () => {
    const log: string[] = [];
    let started = 0;
    const e = longTextsInWorker(
      loggingModel('inline', log),
      opts(async () => {
        started++;
        return loggingModel('worker', log);
      }),
    );
    await e.embed(['short', 'also short']);
    assert.deepEqual(log, ['inline 2']);
    assert.equal(started, 0);
    await e.close();
  });

  it('starts the worker on the first long text, which runs inline, and sends later ones there', async () => {
    const log: string[] = [];
    const e = longTextsInWorker(
      loggingModel('inline', log),
      opts(async () => loggingModel('worker', log)),
    );
    await e.embed([LONG]);
    await new Promise((r) => setImmediate(r));
    await e.embed(['short', LONG]);
    await e.embed(['short']);
    assert.deepEqual(log, ['inline 1', 'worker 2', 'inline 1']);
    await e.close();
    assert.deepEqual(log.slice(3).sort(), ['inline closed', 'worker closed']);
  });

  it('answers on the calling thread when the worker fails to start or dies', async () => {
    const log: string[] = [];
    const noStart = longTextsInWorker(
      loggingModel('inline', log),
      opts(async () => {
        throw new Error('no worker');
      }),
    );
    await noStart.embed([LONG]);
    await new Promise((r) => setImmediate(r));
    assert.equal((await noStart.embed([LONG])).length, 1);
    assert.deepEqual(log, ['inline 1', 'inline 1']);

    log.length = 0;
    const dies = longTextsInWorker(
      loggingModel('inline', log),
      opts(async () => loggingModel('worker', log, true)),
    );
    await dies.embed([LONG]);
    await new Promise((r) => setImmediate(r));
    const [v] = await dies.embed([LONG]);
    assert.equal(v!.length, 16);
    await dies.embed([LONG]);
    // The failed batch is answered inline, and so is everything after it.
    const calls = log.filter((l) => !l.endsWith('closed'));
    assert.deepEqual(calls, ['inline 1', 'worker 1', 'inline 1', 'inline 1']);
    assert.ok(log.includes('worker closed'));
    await Promise.all([noStart.close(), dies.close()]);
  });

  it('closes a worker that finishes starting after close()', async () => {
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const e = longTextsInWorker(
      loggingModel('inline', log),
      opts(async () => {
        await gate;
        return loggingModel('worker', log);
      }),
    );
    await e.embed([LONG]);
    const closing = e.close();
    release();
    await closing;
    assert.deepEqual(log.sort(), ['inline 1', 'inline closed', 'worker closed']);
  });

  it('gives the built-in model’s vectors from the worker bit for bit', async () => {
    const models = await import('@codesift/models');
    const inline = await models.createBuiltinEmbedder({ thread: 'main', threads: 1 });
    let workerCalls = 0;
    const e = longTextsInWorker(inline, {
      startWorker: async () => {
        const w = await models.createBuiltinEmbedder({ thread: 'worker', workers: 1 });
        return {
          ...w,
          embed: (texts: string[]) => {
            workerCalls++;
            return w.embed(texts);
          },
          close: () => w.close(),
        };
      },
    });
    const report = `TypeError: Cannot read properties of undefined (reading "length")\n${Array.from(
      { length: 20 },
      (_, i) => `    at Handler${i} (src/module${i}.ts:${i + 10}:5)`,
    ).join('\n')}`;
    const [fromInline] = await e.embed([report]);
    // Wait for the worker, then ask again: the same floats.
    let fromWorker: Float32Array | undefined;
    for (let i = 0; i < 400 && workerCalls === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      [fromWorker] = await e.embed([report, 'a short one']);
    }
    assert.equal(workerCalls, 1, 'the worker answered');
    assert.deepEqual(fromWorker, fromInline);
    await e.close();
  });
});
