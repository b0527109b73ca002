import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type FakeLlmServer, startFakeLlmServer } from '@codesift/llm/testing';
import { runCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

/** `codesift index --context llm` as a user runs it, with OLLAMA_HOST on a fake Ollama. */
describe('codesift index --context llm (CLI, end to end)', () => {
  const MODEL = 'qwen3:0.6b';
  let work: string;
  let fake: FakeLlmServer;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-llm-'));
    fake = await startFakeLlmServer({ models: [MODEL, 'nomic-embed-text'] });
    env = { OLLAMA_HOST: fake.url, CODESIFT_LLM_MODEL: MODEL };
  });
  after(async () => {
    await fake.close();
    rmSync(work, { recursive: true, force: true });
  });

  function tree(name: string): string {
    const root = path.join(work, name);
    writeTree(root, {
      'src/queue.ts':
        'export class Queue {\n  private items: number[] = [];\n  push(n: number): void {\n    this.items.push(n);\n  }\n}\n',
      'src/util.py': 'def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n',
      'README.md': '# Fixture\n\nA small tree.\n',
    });
    return root;
  }

  test('contexts come from the model; a re-run and a --rebuild make zero model calls', async () => {
    const root = tree('good');
    fake.setMode({
      kind: 'good',
      answer: { context: 'Part of a small fixture tree used to test contextual retrieval.' },
    });
    let before = fake.generations().length;
    const r = await runCli(['index', root, '--context', 'llm', '--json', '--no-vectors'], { env });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.context.mode, 'llm');
    assert.equal(s.context.model, MODEL);
    assert.equal(s.context.modelAnswered, true);
    assert.equal(s.context.sources.llm, s.chunks);
    assert.equal(fake.generations().length - before, s.chunks);

    before = fake.generations().length;
    for (const extra of [[], ['--rebuild']]) {
      const again = await runCli(
        ['index', root, '--context', 'llm', '--json', '--no-vectors', ...extra],
        { env },
      );
      assert.equal(again.code, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout).context.calls, 0);
    }
    assert.equal(fake.generations().length - before, 0);
  });

  test('a hanging model never fails indexing: pattern contexts, counted as timeouts', async () => {
    const root = tree('hang');
    fake.setMode({ kind: 'hang' });
    const r = await runCli(['index', root, '--context', 'llm', '--json', '--no-vectors'], {
      env: { ...env, CODESIFT_LLM_TIMEOUT_MS: '200' },
    });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.filesFailed, 0);
    assert.equal(s.context.sources.pattern, s.chunks);
    assert.equal(s.context.modelAnswered, false);
    assert.equal(s.context.fallbacks.timeout, s.chunks);
  });

  test('with vectors on, embeddings still come from Ollama while the chat model fails (500 then breaker)', async () => {
    const root = tree('err');
    fake.setMode({ kind: 'http', status: 500, error: 'runner crashed' });
    const r = await runCli(['index', root, '--context', 'llm', '--json'], {
      env: { ...env, CODESIFT_LLM_CONCURRENCY: '1' },
    });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.vectors, s.chunks);
    assert.equal(s.context.sources.pattern, s.chunks);
    const { error = 0, 'breaker-open': open = 0 } = s.context.fallbacks;
    assert.equal(error + open, s.chunks);
    assert.equal(error, Math.min(5, s.chunks));
  });

  test('the config file can turn LLM contexts on; asking for them without a model is a usage error', async () => {
    const root = tree('config');
    fake.setMode({
      kind: 'good',
      answer: { context: 'A fixture file used by the end to end tests.' },
    });
    writeFileSync(
      path.join(root, '.codesift.json'),
      JSON.stringify({ context: 'llm', llm: { model: MODEL } }),
    );
    const r = await runCli(['index', root, '--json', '--no-vectors'], {
      env: { OLLAMA_HOST: fake.url, CODESIFT_LLM_MODEL: '' },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).context.mode, 'llm');

    const none = await runCli(['index', tree('nomodel'), '--context', 'llm', '--no-vectors'], {
      env: { OLLAMA_HOST: fake.url, CODESIFT_LLM_MODEL: '' },
    });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /LLM contexts need a model: set CODESIFT_LLM_MODEL/);
    const bad = await runCli(['index', root, '--context', 'smart'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--context must be "pattern" or "llm"/);
  });
});
