import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type FakeLlmServer,
  type FakeMode,
  promptText,
  startFakeLlmServer,
} from '@codesift/llm/testing';
import { gitIn } from '@codesift/scanner/testing';
import { runCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

/**
 * `codesift eval --context llm` as a user runs it: the real CLI, OLLAMA_HOST
 * on the fake Ollama over loopback. The fake writes a context that names what
 * a chunk is for in words the code does not contain, so the LLM-context index
 * finds answers the pattern-context index cannot.
 */
describe('codesift eval --context llm (CLI, end to end)', () => {
  const MODEL = 'qwen3:0.6b';
  let work: string;
  let root: string;
  let fake: FakeLlmServer;
  let env: NodeJS.ProcessEnv;
  const line = (o: object) => `${JSON.stringify(o)}\n`;
  /** Situates each chunk with a word only the model knows about. */
  const SITUATE: FakeMode = {
    kind: 'good',
    answer: (req) => {
      const prompt = promptText(req);
      const topic = /Lru|touch/.test(prompt)
        ? 'eviction'
        : /Next|prev/.test(prompt)
          ? 'retransmission'
          : 'tokenization';
      return { context: `This code implements ${topic} for the fixture service.` };
    },
  };

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-eval-ctx-'));
    root = path.join(work, 'tree');
    writeTree(root, {
      'src/lru.ts':
        'export class Lru {\n  private map = new Map<string, number>();\n  touch(k: string): void {\n    this.map.delete(k);\n  }\n}\n',
      'src/backoff.go': 'package net\n\nfunc Next(prev int) int {\n\treturn prev * 2\n}\n',
      'src/words.py': 'def split_words(text):\n    return text.split()\n',
    });
    fake = await startFakeLlmServer({ models: [MODEL], mode: SITUATE });
    env = { OLLAMA_HOST: fake.url, CODESIFT_LLM_MODEL: MODEL };
  });
  after(async () => {
    await fake.close();
    rmSync(work, { recursive: true, force: true });
  });

  function writeSet(): string {
    const set = path.join(work, 'set.jsonl');
    writeFileSync(
      set,
      line({ id: 'evict', query: 'eviction', relevant_files: ['src/lru.ts'] }) +
        line({ id: 'retx', query: 'retransmission', relevant_files: ['src/backoff.go'] }) +
        line({ id: 'words', query: 'split_words', relevant_files: ['src/words.py'] }),
    );
    return set;
  }

  test('--repo: both systems side by side with deltas and index contexts; a second run asks nothing', async () => {
    const set = writeSet();
    // The query rewrite would call the same model for the queries that find nothing.
    const args = [
      'eval',
      '--set',
      set,
      '--repo',
      root,
      '--no-vectors',
      '--context',
      'llm',
      '--rewrite',
      'off',
    ];
    const calls0 = fake.generations().length;
    const r = await runCli([...args, '--json'], { env, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    const firstCalls = fake.generations().length - calls0;
    assert.ok(firstCalls > 0, 'the model was asked');

    // The model's words are only in the LLM-context index.
    assert.equal(report.overall.codesift.acc1, 1 / 3);
    assert.equal(report.overall.llm.acc1, 1);
    assert.equal(report.overall.chunks.llm.count, 3);
    const evict = report.queries.find((q: { id: string }) => q.id === 'evict');
    assert.equal(evict.codesift.firstRelevantRank, null);
    assert.equal(evict.llm.firstRelevantRank, 1);

    const cmp = report.contextComparison;
    assert.equal(cmp.model, MODEL);
    assert.equal(typeof cmp.promptVersion, 'string');
    assert.deepEqual(cmp.queries, { better: 2, worse: 0, same: 1 });
    assert.equal(cmp.deltas.files.acc1, Math.round((2 / 3) * 10000) / 10000);
    assert.equal(cmp.indexes.pattern.mode, 'pattern');
    assert.equal(cmp.indexes.pattern.sources.llm, 0);
    assert.ok(cmp.indexes.pattern.sources.pattern >= 3);
    assert.equal(cmp.indexes.llm.sources.llm, firstCalls, 'one call per LLM-context chunk');
    assert.equal(cmp.indexes.llm.sources.pattern, 0);
    assert.deepEqual(cmp.indexes.llm.fallbacks, {});
    assert.equal(cmp.indexes.llm.modelAnswered, true);
    const llmIndex = report.checkouts[0].llm.indexPath;
    assert.ok(llmIndex.startsWith(path.join(root, '.codesift', 'eval-contexts')), llmIndex);
    assert.notEqual(llmIndex, report.checkouts[0].indexPath);

    // Nothing changed: no model call, both indexes reused.
    const calls1 = fake.generations().length;
    const again = await runCli(args, { env, cwd: work });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(fake.generations().length, calls1);
    assert.match(again.stdout, /^contexts: pattern \(codesift\) and LLM \(cs\+llm: qwen3:0\.6b/m);
    assert.match(again.stdout, /overall\s+codesift\s+3\s+0\.333/);
    assert.match(again.stdout, /\n\s+cs\+llm\s+3\s+1\.000/);
    assert.match(again.stdout, /\n\s+Δ llm\s+\+0\.667/);
    assert.match(again.stdout, /\n\s+bm25\s+3\s/);
    assert.match(
      again.stdout,
      /2 queries ranked their first relevant file higher, 0 lower, 1 the same/,
    );
    assert.match(
      again.stdout,
      /LLM index\s+chunks: llm 0, pattern 0; fallbacks: none; model calls 0/,
    );
  });

  test('--checkouts: the LLM-context index has its own cache key; the pattern index is reused; a model that was down is asked again next run', async () => {
    const repo = path.join(work, 'repo');
    writeTree(repo, {
      'src/lru.ts': 'export class Lru {\n  touch(k: string): void {\n    void k;\n  }\n}\n',
      'src/backoff.go': 'package net\n\nfunc Next(prev int) int {\n\treturn prev * 2\n}\n',
    });
    const git = (...a: string[]) => gitIn(repo, ...a).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    const commit = git('rev-parse', 'HEAD');
    const set = path.join(work, 'checkouts.jsonl');
    writeFileSync(
      set,
      line({
        id: 'evict',
        repo: 'acme/cache',
        commit,
        query: 'eviction',
        relevant_files: ['src/lru.ts'],
      }),
    );
    const cache = path.join(work, 'cache');
    const base = [
      'eval',
      '--set',
      set,
      '--checkouts',
      cache,
      '--git-dir',
      `acme/cache=${repo}`,
      '--rewrite',
      'off',
    ];
    const pattern = await runCli([...base, '--no-vectors', '--json'], { env, cwd: work });
    assert.equal(pattern.code, 0, pattern.stderr);
    assert.equal(JSON.parse(pattern.stdout).contextComparison, null);

    // The model is down for the first LLM run: pattern contexts, counted, and not kept.
    fake.setMode({ kind: 'http', status: 500 });
    const down = await runCli([...base, '--no-vectors', '--json', '--context', 'llm'], {
      env,
      cwd: work,
    }).finally(() => fake.setMode(SITUATE));
    assert.equal(down.code, 0, down.stderr);
    const r1 = JSON.parse(down.stdout);
    assert.equal(r1.checkouts[0].status, 'cached', 'the pattern index is reused');
    assert.equal(r1.checkouts[0].llm.status, 'built');
    assert.equal(r1.contextComparison.indexes.llm.modelAnswered, false);
    assert.equal(r1.contextComparison.indexes.llm.sources.llm, 0);
    assert.ok((r1.contextComparison.indexes.llm.fallbacks.error ?? 0) > 0);
    assert.match(down.stderr, /never answered; this index has pattern contexts only/);
    const keys = readdirSync(path.join(cache, 'indexes', `acme+cache@${commit}`)).sort();
    assert.equal(keys.length, 2);
    assert.match(keys[0]!, /^keyword-only-llmctx-qwen3_0\.6b-context-v1-schema/);
    assert.match(keys[1]!, /^keyword-only-schema/);

    const back = await runCli([...base, '--no-vectors', '--json', '--context', 'llm'], {
      env,
      cwd: work,
    });
    assert.equal(back.code, 0, back.stderr);
    const r2 = JSON.parse(back.stdout);
    assert.equal(r2.checkouts[0].llm.status, 'built', 'rebuilt: the last build missed the model');
    assert.equal(r2.contextComparison.indexes.llm.modelAnswered, true);
    assert.equal(r2.contextComparison.indexes.llm.sources.pattern, 0);
    assert.equal(r2.queries[0].llm.firstRelevantRank, 1);
    assert.equal(r2.queries[0].codesift.firstRelevantRank, null);

    const calls = fake.generations().length;
    const cached = await runCli([...base, '--no-vectors', '--json', '--context', 'llm'], {
      env,
      cwd: work,
    });
    const r3 = JSON.parse(cached.stdout);
    assert.equal(r3.checkouts[0].llm.status, 'cached');
    assert.equal(fake.generations().length, calls, 'a complete LLM-context index asks nothing');
    assert.equal(
      r3.contextComparison.indexes.llm.sources.llm,
      r2.contextComparison.indexes.llm.sources.llm,
      'as built',
    );
    assert.ok(
      existsSync(path.join(cache, 'indexes', `acme+cache@${commit}`, keys[0]!, 'contexts.db')),
    );
  });

  test('without a model, --context llm is a usage error naming CODESIFT_LLM_MODEL and OLLAMA_HOST', async () => {
    const set = writeSet();
    const r = await runCli(
      ['eval', '--set', set, '--repo', root, '--no-vectors', '--context', 'llm'],
      { env: { CODESIFT_LLM_MODEL: '', OLLAMA_HOST: '' }, cwd: work },
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /needs one: set CODESIFT_LLM_MODEL .* and OLLAMA_HOST/);
    const bad = await runCli(['eval', '--set', set, '--repo', root, '--context', 'smart'], {
      env,
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--context must be "pattern" or "llm"/);
  });
});
