import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { serveStdio } from './stdio-transport.js';
import { FakeEngine } from './test-support/fake-engine.js';

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

describe('stdio transport', () => {
  test('answers newline-delimited JSON-RPC on stdout and ends when stdin ends', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const engine = new FakeEngine();
    const handle = await serveStdio(engine, { stdin, stdout });
    const reply = nextLine(stdout);
    stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '0' },
        },
      })}\n`,
    );
    const message = JSON.parse(await reply);
    assert.equal(message.id, 1);
    assert.equal(message.result.serverInfo.name, 'codesift');
    assert.ok(message.result.capabilities.tools);

    stdin.end();
    await handle.closed;
    assert.equal(engine.closed, false, 'the engine belongs to the caller');
  });

  test('close() ends the session', async () => {
    const handle = await serveStdio(new FakeEngine(), {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
    });
    await handle.close();
    await handle.closed;
  });
});
