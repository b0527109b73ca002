import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  DEFAULT_OLLAMA_HOST,
  LLM_DEFAULTS,
  readLlmFileSettings,
  readRepositoryLlmSettings,
  resolveLlmConfig,
  validateLlmSection,
} from './config.js';

test('no model configured means no LLM at all', () => {
  assert.equal(resolveLlmConfig({ OLLAMA_HOST: 'http://gpu:11434' }), null);
  assert.equal(resolveLlmConfig({}, { host: 'http://gpu:11434' }), null);
});

test('the environment wins over the config file; defaults fill the rest', () => {
  const file = validateLlmSection({ model: 'a:1b', host: 'http://file:1', timeoutMs: 500 }, 'f');
  assert.deepEqual(resolveLlmConfig({}, file), {
    ...LLM_DEFAULTS,
    host: 'http://file:1',
    model: 'a:1b',
    timeoutMs: 500,
  });
  const env = {
    CODESIFT_LLM_MODEL: 'b:2b',
    OLLAMA_HOST: 'http://env:2',
    CODESIFT_LLM_CONCURRENCY: '8',
  };
  const c = resolveLlmConfig(env, file)!;
  assert.equal(c.model, 'b:2b');
  assert.equal(c.host, 'http://env:2');
  assert.equal(c.concurrency, 8);
  assert.equal(resolveLlmConfig({ CODESIFT_LLM_MODEL: 'm' })!.host, DEFAULT_OLLAMA_HOST);
});

test('bad settings are errors naming the place and the key', () => {
  assert.throws(() => validateLlmSection([], 'cfg.json'), /cfg.json: "llm" must be an object/);
  assert.throws(
    () => validateLlmSection({ model: '' }, 'cfg.json'),
    /"llm.model" must be a non-empty string/,
  );
  assert.throws(
    () => validateLlmSection({ timeoutMs: -1 }, 'c'),
    /"llm.timeoutMs" must be a positive integer/,
  );
  assert.throws(() => validateLlmSection({ retries: 1.5 }, 'c'), /"llm.retries"/);
  assert.throws(
    () => resolveLlmConfig({ CODESIFT_LLM_MODEL: 'm', CODESIFT_LLM_TIMEOUT_MS: 'soon' }),
    /CODESIFT_LLM_TIMEOUT_MS must be a positive integer, got soon/,
  );
});

test('a config file gives the llm section and the context mode; other keys are ignored', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'codesift-llm-config-'));
  try {
    assert.deepEqual(readRepositoryLlmSettings(dir), { llm: {} });
    const file = path.join(dir, '.codesift.json');
    writeFileSync(
      file,
      JSON.stringify({ search: { fusion: 'rrf' }, llm: { model: 'm:1b' }, context: 'llm' }),
    );
    assert.deepEqual(readRepositoryLlmSettings(dir), { llm: { model: 'm:1b' }, context: 'llm' });
    writeFileSync(file, JSON.stringify({ context: 'smart' }));
    assert.throws(() => readLlmFileSettings(file), /"context" must be "pattern" or "llm"/);
    writeFileSync(file, '{ nope');
    assert.throws(() => readLlmFileSettings(file), /cannot read .*\.codesift\.json: /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
