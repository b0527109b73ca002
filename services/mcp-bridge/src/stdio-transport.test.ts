import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { serveStdio } from './stdio-transport.js';
import { FakeEngine } from './testing/fake-engine.js';

function nextLine(stream: PassThrough): Promise<string> {
  return new Promise((resolve) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        stream.off('data', onData);
        resolve(buf.slice(0, nl));
      }
    };
    stream.on('data', onData);
  });
}

function initialize(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '0' },
    },
  });
}

describe('stdio transport', () => {
  test('answers newline-delimited JSON-RPC on stdout and ends when stdin ends', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const engine = new FakeEngine();
    const handle = await serveStdio(engine, { stdin, stdout });
    const reply = nextLine(stdout);
    stdin.write(`${initialize(1)}\n`);
    const message = JSON.parse(await reply);
    assert.equal(message.id, 1);
    assert.equal(message.result.serverInfo.name, 'codesift');
    assert.ok(message.result.capabilities.tools);

    stdin.end();
    await handle.closed;
    assert.equal(engine.closed, false, 'the engine belongs to the caller');
  });

  test('close() ends the session: stdin is let go and later requests get no answer', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const engine = new FakeEngine();
    const handle = await serveStdio(engine, { stdin, stdout });
    const reply = nextLine(stdout);
    stdin.write(`${initialize(1)}\n`);
    assert.equal(JSON.parse(await reply).id, 1, 'the session answers before close()');

    await handle.close();
    await handle.closed;
    for (const event of ['data', 'end', 'close'] as const) {
      assert.equal(stdin.listenerCount(event), 0, `no '${event}' listener is left on stdin`);
    }
    assert.equal(stdout.listenerCount('error'), 0, "no 'error' listener is left on stdout");

    let answered = '';
    stdout.on('data', (d: Buffer) => {
      answered += d.toString();
    });
    stdin.write(`${initialize(2)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(answered, '', 'a request after close() is not answered');
    assert.equal(engine.closed, false, 'the engine belongs to the caller');
  });
});
