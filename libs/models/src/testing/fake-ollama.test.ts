import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ollama } from 'ollama';
import { startFakeOllama } from './fake-ollama.js';

test('fake Ollama answers chat with scripted JSON, streamed or not', async () => {
  const fake = await startFakeOllama({ models: ['qwen2.5-coder:1.5b'] });
  try {
    const ollama = new Ollama({ host: fake.url });
    fake.enqueue('/api/chat', { chat: { summary: 'parses CLI flags' } }, { chat: 'plain text' });
    const first = await ollama.chat({
      model: 'qwen2.5-coder:1.5b',
      messages: [{ role: 'user', content: 'summarise' }],
      format: 'json',
      stream: false,
    });
    assert.deepEqual(JSON.parse(first.message.content), { summary: 'parses CLI flags' });
    assert.equal(first.done, true);
    let streamed = '';
    for await (const part of await ollama.chat({
      model: 'qwen2.5-coder:1.5b',
      messages: [{ role: 'user', content: 'again' }],
      stream: true,
    })) {
      streamed += part.message.content;
    }
    assert.equal(streamed, 'plain text');
    const chats = fake.requests.filter((r) => r.path === '/api/chat');
    assert.equal(chats[0]!.body?.format, 'json');
    assert.deepEqual(chats[1]!.body?.messages, [{ role: 'user', content: 'again' }]);
    await assert.rejects(
      ollama.chat({ model: 'llama3', messages: [], stream: false }),
      (err: Error & { status_code?: number }) =>
        err.status_code === 404 && /not found/.test(err.message),
    );
  } finally {
    await fake.close();
  }
});

test('fake Ollama lists its models and supports function scripts', async () => {
  const fake = await startFakeOllama({ models: ['nomic-embed-text', 'qwen2.5-coder:1.5b'] });
  try {
    const ollama = new Ollama({ host: fake.url });
    const tags = await ollama.list();
    assert.deepEqual(
      tags.models.map((m) => m.name),
      ['nomic-embed-text:latest', 'qwen2.5-coder:1.5b'],
    );
    fake.setDefault('/api/chat', (req) => ({
      chat: { echo: (req.body!.messages as { content: string }[])[0]!.content },
    }));
    const reply = await ollama.chat({
      model: 'qwen2.5-coder:1.5b',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
    });
    assert.deepEqual(JSON.parse(reply.message.content), { echo: 'hi' });
  } finally {
    await fake.close();
  }
});
