import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLlmClient, type JsonSchema } from './client.js';
import { resolveLlmConfig } from './config.js';

/**
 * The client against a real Ollama server, when one is configured:
 *   OLLAMA_HOST=http://127.0.0.1:11434 CODESIFT_LLM_MODEL=qwen3:0.6b node --test ...
 * Scripted faults (500, garbage, 2 MB) need the fake; these are the checks a
 * real server can answer: a schema-shaped answer, a missing model, a timeout.
 */
const host = process.env.OLLAMA_HOST?.trim();
const model = process.env.CODESIFT_LLM_MODEL?.trim();
const skip = !host
  ? 'OLLAMA_HOST is not set: no real Ollama to test against'
  : !model
    ? 'CODESIFT_LLM_MODEL is not set: no model to test with'
    : false;

const SCHEMA: JsonSchema = {
  type: 'object',
  properties: { summary: { type: 'string', maxLength: 400 } },
  required: ['summary'],
};
const ASK = {
  system: 'Describe the code in one sentence. Answer as JSON: {"summary": "..."}',
  user: 'function add(a, b) { return a + b; }',
  schema: SCHEMA,
  options: { temperature: 0, num_predict: 120 },
};

test('real Ollama: a schema-shaped answer', { skip }, async () => {
  const config = resolveLlmConfig(process.env)!;
  const out = await createLlmClient({ ...config, timeoutMs: 120_000 }).chatJson<{
    summary: string;
  }>(ASK);
  assert.equal(out.ok, true, out.ok ? '' : `${out.failure}: ${out.reason}`);
  assert.equal(typeof (out.ok && out.value.summary), 'string');
});

test('real Ollama: a model that is not installed is model-missing', { skip }, async () => {
  const config = resolveLlmConfig(process.env)!;
  const out = await createLlmClient({ ...config, model: 'codesift-no-such-model:1b' }).chatJson(
    ASK,
  );
  assert.equal(!out.ok && out.failure, 'model-missing');
});

test('real Ollama: a call that cannot finish in time is a timeout', { skip }, async () => {
  const config = resolveLlmConfig(process.env)!;
  const out = await createLlmClient({ ...config, timeoutMs: 1 }).chatJson(ASK);
  assert.equal(!out.ok && out.failure, 'timeout');
});
