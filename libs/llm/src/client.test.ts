import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { createLlmClient, type JsonSchema } from './client.js';
import { LLM_DEFAULTS, type LlmConfig } from './config.js';
import { type FakeLlmServer, startFakeLlmServer } from './testing/index.js';

const MODEL = 'qwen3:0.6b';
const SCHEMA: JsonSchema = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
  additionalProperties: false,
};
const ASK = { system: 'Summarise.', user: 'function add(a, b) { return a + b; }', schema: SCHEMA };

let fake: FakeLlmServer;
before(async () => {
  fake = await startFakeLlmServer({ models: [MODEL] });
});
after(() => fake.close());

/** Requests of this test only: a request aborted by an earlier test may still arrive late. */
function askedWith(marker: string): number {
  return fake.generations().filter((r) => JSON.stringify(r.body).includes(marker)).length;
}

function config(over: Partial<LlmConfig> = {}): LlmConfig {
  return { ...LLM_DEFAULTS, host: fake.url, model: MODEL, timeoutMs: 10_000, ...over };
}

test('a good answer comes back validated, with the schema sent as format and the prompt split system/user', async () => {
  fake.setMode({ kind: 'good', answer: { summary: 'Adds two numbers.' } });
  const before = fake.generations().length;
  const out = await createLlmClient(config()).chatJson<{ summary: string }>(ASK);
  assert.equal(out.ok, true);
  assert.deepEqual(out.ok && out.value, { summary: 'Adds two numbers.' });
  const sent = fake.generations()[before]!;
  assert.equal(sent.path, '/api/chat');
  assert.deepEqual(sent.body?.format, SCHEMA);
  assert.equal(sent.body?.stream, false);
  assert.deepEqual(sent.body?.messages, [
    { role: 'system', content: ASK.system },
    { role: 'user', content: ASK.user },
  ]);
});

test('a hanging model is a timeout within the configured time, not a hang', async () => {
  fake.setMode({ kind: 'hang' });
  const started = performance.now();
  const out = await createLlmClient(config({ timeoutMs: 150 })).chatJson(ASK);
  assert.equal(out.ok, false);
  assert.equal(!out.ok && out.failure, 'timeout');
  assert.ok(performance.now() - started < 1500);
});

test('a slow answer inside the limit is fine; outside it is a timeout', async () => {
  fake.setMode({ kind: 'delay', ms: 50, after: { kind: 'good', answer: { summary: 's' } } });
  assert.equal((await createLlmClient(config({ timeoutMs: 1000 })).chatJson(ASK)).ok, true);
  fake.setMode({ kind: 'delay', ms: 400, after: { kind: 'good', answer: { summary: 's' } } });
  const out = await createLlmClient(config({ timeoutMs: 100 })).chatJson(ASK);
  assert.equal(!out.ok && out.failure, 'timeout');
});

test('HTTP 500 is an error and is not retried', async () => {
  fake.setMode({ kind: 'http', status: 500, error: 'llama runner crashed' });
  const out = await createLlmClient(config()).chatJson({ ...ASK, user: 'case-500' });
  assert.equal(!out.ok && out.failure, 'error');
  assert.match(!out.ok ? out.reason : '', /HTTP 500.*llama runner crashed/);
  assert.equal(askedWith('case-500'), 1);
});

test('503 and a reset connection are retried; a bad answer is never retried', async () => {
  fake.setMode({ kind: 'good', answer: { summary: 'ok' } });
  fake.queue({ kind: 'http', status: 503 }, { kind: 'reset' });
  const client = createLlmClient(config());
  const out = await client.chatJson({ ...ASK, user: 'case-503' });
  assert.equal(out.ok, true);
  assert.equal(askedWith('case-503'), 3);
  assert.equal(client.stats().retries, 2);

  fake.setMode({ kind: 'schema-violation' });
  const bad = await client.chatJson({ ...ASK, user: 'case-bad-answer' });
  assert.equal(!bad.ok && bad.failure, 'garbage');
  assert.equal(askedWith('case-bad-answer'), 1);
});

test('retries stop after the configured count', async () => {
  fake.setMode({ kind: 'http', status: 502 });
  const out = await createLlmClient(config({ retries: 1 })).chatJson({ ...ASK, user: 'case-502' });
  assert.equal(!out.ok && out.failure, 'error');
  assert.equal(askedWith('case-502'), 2);
});

test('content that is not JSON, an off-schema answer, a broken body and a 2 MB body are garbage with reasons', async () => {
  const client = createLlmClient(config());
  const cases = [
    [{ kind: 'invalid-json' }, /answer is not JSON/],
    [{ kind: 'schema-violation' }, /does not match the schema/],
    [{ kind: 'broken-body' }, /reply body is not JSON/],
    [{ kind: 'huge' }, /reply body over 262144 bytes/],
    [{ kind: 'good', answer: { summary: 'y'.repeat(9000) } }, /over 8000/],
  ] as const;
  for (const [mode, reason] of cases) {
    fake.setMode(mode);
    const out = await client.chatJson(ASK);
    assert.equal(!out.ok && out.failure, 'garbage', mode.kind);
    assert.match(!out.ok ? out.reason : '', reason);
  }
});

test('an Ollama older than structured outputs (it refuses a schema as format) is named as such', async () => {
  // What a pre-0.5 server answers when `format` is an object, not "json".
  fake.setMode({
    kind: 'http',
    status: 400,
    error: 'json: cannot unmarshal object into Go struct field ChatRequest.format of type string',
  });
  const out = await createLlmClient(config()).chatJson({ ...ASK, user: 'case-old-ollama' });
  assert.equal(!out.ok && out.failure, 'error');
  assert.match(!out.ok ? out.reason : '', /needs Ollama 0\.5\.0 or later \(structured outputs\)/);
  assert.equal(askedWith('case-old-ollama'), 1, 'not retried');
  // Any other 400 keeps its own message.
  fake.setMode({ kind: 'http', status: 400, error: 'invalid options' });
  const other = await createLlmClient(config()).chatJson({ ...ASK, user: 'case-400' });
  assert.match(!other.ok ? other.reason : '', /^HTTP 400 .*invalid options/);
});

test('a missing model is model-missing, naming the pull command', async () => {
  fake.setMode({ kind: 'good', answer: { summary: 'never' } });
  const out = await createLlmClient(config({ model: 'llama9:70b' })).chatJson(ASK);
  assert.equal(!out.ok && out.failure, 'model-missing');
  assert.match(!out.ok ? out.reason : '', /ollama pull llama9:70b/);
});

test('a refused connection is an error after retries, and the breaker opens after N failures then half-opens', async () => {
  const port = await freePort();
  const client = createLlmClient(
    config({
      host: `http://127.0.0.1:${port}`,
      retries: 0,
      breakerThreshold: 3,
      breakerCooldownMs: 200,
    }),
  );
  for (let i = 0; i < 3; i++) {
    const out = await client.chatJson(ASK);
    assert.equal(!out.ok && out.failure, 'error');
    assert.match(!out.ok ? out.reason : '', /ECONNREFUSED/);
  }
  const refused = await client.chatJson(ASK);
  assert.equal(!refused.ok && refused.failure, 'breaker-open');
  assert.match(
    !refused.ok ? refused.reason : '',
    /circuit breaker open after 3 consecutive failures/,
  );
  assert.equal(client.stats().calls, 3);
  await new Promise((r) => setTimeout(r, 250));
  // Half-open: one trial goes out (and fails, so it opens again at once).
  const trial = await client.chatJson(ASK);
  assert.equal(!trial.ok && trial.failure, 'error');
  assert.equal(client.stats().calls, 4);
  assert.equal(((await client.chatJson(ASK)) as { failure: string }).failure, 'breaker-open');
  assert.equal(client.stats().breakerOpened, 2);
});

test('the breaker closes again when the half-open trial succeeds', async () => {
  fake.setMode({ kind: 'http', status: 500 });
  const client = createLlmClient(config({ breakerThreshold: 2, breakerCooldownMs: 100 }));
  await client.chatJson(ASK);
  await client.chatJson(ASK);
  assert.equal(((await client.chatJson(ASK)) as { failure: string }).failure, 'breaker-open');
  fake.setMode({ kind: 'good', answer: { summary: 'back' } });
  await new Promise((r) => setTimeout(r, 150));
  assert.equal((await client.chatJson(ASK)).ok, true);
  assert.equal((await client.chatJson(ASK)).ok, true);
});

test('concurrency is bounded: N calls at a time, the rest wait', async () => {
  fake.setMode({ kind: 'delay', ms: 40, after: { kind: 'good', answer: { summary: 'x' } } });
  const client = createLlmClient(config({ concurrency: 3 }));
  const started = performance.now();
  const outs = await Promise.all(Array.from({ length: 9 }, () => client.chatJson(ASK)));
  const ms = performance.now() - started;
  assert.ok(outs.every((o) => o.ok));
  // 9 calls of 40 ms, 3 at a time: at least 3 rounds (unbounded would take one).
  assert.ok(ms >= 115, `took ${ms} ms`);
});

test('the fake records request sizes and echoes vocabulary words shared with the question', async () => {
  fake.setMode({ kind: 'vocabulary-echo' });
  const schema = {
    type: 'object',
    properties: { terms: { type: 'array', items: { type: 'string' } }, focus: { type: 'string' } },
    required: ['terms', 'focus'],
  };
  const out = await createLlmClient(config()).chatJson<{ terms: string[] }>({
    system: 'Pick identifiers.',
    user: 'Vocabulary:\naddEdge, GraphStore, parse_flags\nremoveNode\n\nQuestion: where are edges added to the graph?',
    schema,
  });
  assert.deepEqual(out.ok && out.value, { terms: ['addEdge', 'GraphStore'], focus: '' });
  assert.ok((fake.generations().at(-1)?.bytes ?? 0) > 100);
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
