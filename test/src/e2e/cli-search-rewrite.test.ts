import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type FakeLlmServer, promptText, startFakeLlmServer } from '@codesift/llm/testing';
import { runCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

/** `codesift search --rewrite` as a user runs it, with OLLAMA_HOST on a fake Ollama. */
describe('codesift search --rewrite (CLI, end to end)', () => {
  const MODEL = 'qwen3:0.6b';
  const QUESTION = 'how does a new edge get into the graph store';
  let work: string;
  let root: string;
  let fake: FakeLlmServer;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-rewrite-'));
    root = path.join(work, 'repo');
    writeTree(root, {
      'src/graph.ts':
        'export class GraphStore {\n  private links = new Map<string, string[]>();\n  /** Links one node to another. */\n  addEdge(a: string, b: string): void {\n    this.links.set(a, [...(this.links.get(a) ?? []), b]);\n  }\n}\n',
      'src/flags.ts':
        'export function parseFlags(argv: string[]): string[] {\n  return argv.filter((a) => a.startsWith("--"));\n}\n',
    });
    const built = await runCli(['index', root, '--no-vectors', '--json'], { env: {} });
    assert.equal(built.code, 0, built.stderr);
    fake = await startFakeLlmServer({ models: [MODEL], mode: { kind: 'vocabulary-echo' } });
    env = { OLLAMA_HOST: fake.url, CODESIFT_LLM_MODEL: MODEL };
  });
  after(async () => {
    await fake.close();
    rmSync(work, { recursive: true, force: true });
  });

  const search = (args: string[], extraEnv: NodeJS.ProcessEnv = env) =>
    runCli(['search', '--index', root, '--keyword-only', '--json', '--explain', ...args], {
      env: extraEnv,
    });

  test('--rewrite on: the model gets the schema and a vocabulary slice; the plan shows its terms', async () => {
    const before = fake.generations().length;
    const r = await search(['--rewrite', 'on', QUESTION]);
    assert.equal(r.code, 0, r.stderr);
    const sent = fake.generations().slice(before);
    assert.equal(sent.length, 1);
    const format = sent[0]!.body?.format as { required?: string[] };
    assert.deepEqual(format.required, ['terms', 'focus']);
    const prompt = promptText(sent[0]!);
    assert.match(prompt, /^addEdge \[method\] src\/graph\.ts$/m);
    assert.doesNotMatch(prompt, /parseFlags/);
    assert.ok(sent[0]!.bytes < 4000, `${sent[0]!.bytes} bytes`);
    const out = JSON.parse(r.stdout);
    const rw = out.plan.llmRewrite;
    assert.deepEqual([rw.decision, rw.model, rw.fallback], ['run', MODEL, null]);
    assert.ok(rw.terms.includes('addEdge'), JSON.stringify(rw));
    assert.equal(typeof rw.ms, 'number');
    assert.deepEqual(out.degraded, []);
    assert.equal(out.results[0].path, 'src/graph.ts');
  });

  test('--explain prints the rewrite: model, milliseconds, terms, focus', async () => {
    const r = await runCli(
      ['search', '--index', root, '--keyword-only', '--explain', '--rewrite', 'on', QUESTION],
      { env },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /llm rewrite: qwen3:0\.6b, \d+ ms; terms [^\n]*addEdge[^\n]*, focus/);
  });

  test('--rewrite off, or no model configured: nothing is sent', async () => {
    const before = fake.generations().length;
    const off = await search(['--rewrite', 'off', QUESTION]);
    const none = await search([QUESTION], { OLLAMA_HOST: fake.url, CODESIFT_LLM_MODEL: '' });
    assert.equal(fake.generations().length, before);
    assert.equal(JSON.parse(off.stdout).plan.llmRewrite.decision, 'skip');
    assert.match(JSON.parse(none.stdout).plan.llmRewrite.reason, /no model/);
  });

  test('a failing model degrades, never fails, the search; a bad --rewrite is a usage error', async () => {
    fake.setMode({ kind: 'http', status: 500 });
    try {
      const r = await search(['--rewrite', 'on', QUESTION]);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.match(out.degraded[0], /^rewrite: error: HTTP 500/);
      assert.ok(out.results.length > 0);
    } finally {
      fake.setMode({ kind: 'vocabulary-echo' });
    }
    const bad = await search(['--rewrite', 'maybe', QUESTION]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--rewrite must be auto, on or off/);
  });

  test('codesift eval --rewrite on passes the mode to every search', async () => {
    const set = path.join(work, 'set.jsonl');
    writeFileSync(
      set,
      `${JSON.stringify({ id: 'q', query: QUESTION, relevant_files: ['src/graph.ts'] })}\n`,
    );
    const before = fake.generations().length;
    const r = await runCli(
      [
        'eval',
        '--set',
        set,
        '--repo',
        root,
        '--no-vectors',
        '--no-baseline',
        '--json',
        '--rewrite',
        'on',
      ],
      { cwd: work, env },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).engine.switches, { rewrite: 'on' });
    assert.ok(fake.generations().length > before, 'the model was asked');
  });
});
