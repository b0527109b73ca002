import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { indexRepository } from '@codesift/pipeline';
import { makeTree, SECRET_SAMPLES } from '@codesift/scanner/testing';
import { openSqliteIndex } from '@codesift/stores';
import { openLocalEngine } from './engine.js';
import type { SearchEngine } from './types.js';

const s = SECRET_SAMPLES;
const CONFIG = [
  '"""Service configuration."""',
  `AWS_ACCESS_KEY_ID = "${s['aws-access-key']!.secret}"`,
  s['private-key']!.line,
  `GITHUB_TOKEN = "${s['github-token']!.secret}"`,
  'RETRIES = 3',
  '',
].join('\n');

async function withIndexedTree(
  t: import('node:test').TestContext,
  fn: (e: SearchEngine, root: string) => Promise<void>,
): Promise<void> {
  const root = makeTree(t, {
    'app/config.py': CONFIG,
    'app/retry.ts': 'export const attempts = 5;\n',
    '.env': `GITHUB_TOKEN=${s['github-token']!.secret}\n`,
  });
  await indexRepository({ root, vectors: false });
  const engine = await openLocalEngine({
    indexPath: path.join(root, '.codesift', 'index.db'),
    embedder: null,
  });
  try {
    await fn(engine, root);
  } finally {
    await engine.close();
  }
}

const refused = (pattern: RegExp) => (err: unknown) =>
  err instanceof CodesiftError && err.code === 'INVALID_ARGUMENT' && pattern.test(err.message);

test('a search for a secret finds nothing; the redacted file is still found', async (t) => {
  await withIndexedTree(t, async (e, root) => {
    const index = openSqliteIndex(path.join(root, '.codesift', 'index.db'), { create: false });
    try {
      for (const rule of ['aws-access-key', 'github-token'] as const) {
        const term = s[rule]!.secret.toLowerCase();
        const hits = await index.keyword.search({ terms: [{ term }], limit: 10 });
        assert.deepEqual(hits, [], `${rule}: no stored chunk holds the secret`);
      }
    } finally {
      index.close();
    }
    for (const rule of ['aws-access-key', 'github-token'] as const) {
      // Its identifier parts ("3", "xw") may still match other text, never the secret.
      const res = await e.search({ query: s[rule]!.secret, limit: 10 });
      assert.ok(!JSON.stringify(res.results).includes(s[rule]!.secret), rule);
    }
    const res = await e.search({ query: 'RETRIES service configuration', limit: 10 });
    const hit = res.results.find((r) => r.path === 'app/config.py');
    assert.ok(hit, 'the file itself is indexed');
    assert.match(JSON.stringify(hit), /REDACTED:github-token/);
  });
});

test('getSnippet serves the file with its secrets redacted and its lines in place', async (t) => {
  await withIndexedTree(t, async (e) => {
    const snippet = await e.getSnippet('app/config.py', 1, 100);
    const lines = snippet.text.split('\n');
    assert.equal(lines.length, CONFIG.split('\n').length - 1);
    assert.equal(lines[1], 'AWS_ACCESS_KEY_ID = "[REDACTED:aws-access-key]"');
    assert.equal(lines[2], '[REDACTED:private-key]');
    assert.equal(lines[6], 'GITHUB_TOKEN = "[REDACTED:github-token]"');
    assert.equal(lines[7], 'RETRIES = 3');
    for (const { secret } of Object.values(s)) assert.ok(!snippet.text.includes(secret));
    const one = await e.getSnippet('app/config.py', 8, 8);
    assert.equal(one.text, 'RETRIES = 3');
  });
});

test('an indexed file swapped for a symlink or a FIFO is refused, not followed', async (t) => {
  await withIndexedTree(t, async (e, root) => {
    const indexed = path.join(root, 'app', 'retry.ts');
    rmSync(indexed);
    symlinkSync(path.join(root, '.env'), indexed);
    await assert.rejects(e.getSnippet('app/retry.ts', 1, 1), refused(/is a symbolic link/));
    rmSync(indexed);
    symlinkSync('../app/config.py', indexed);
    await assert.rejects(e.getSnippet('app/retry.ts', 1, 1), refused(/is a symbolic link/));
    rmSync(indexed);
    execFileSync('mkfifo', [indexed]);
    await assert.rejects(e.getSnippet('app/retry.ts', 1, 1), refused(/is not a regular file/));
    rmSync(indexed);
    writeFileSync(indexed, 'export const attempts = 5;\n');
    assert.equal((await e.getSnippet('app/retry.ts', 1, 1)).text, 'export const attempts = 5;');
  });
});

test('an indexed file replaced by a hard link or a copy of another file serves nothing of it', async (t) => {
  await withIndexedTree(t, async (e, root) => {
    const indexed = path.join(root, 'app', 'retry.ts');
    const env = readFileSync(path.join(root, '.env'), 'utf8');
    rmSync(indexed);
    linkSync(path.join(root, '.env'), indexed);
    const linked = await e.getSnippet('app/retry.ts', 1, 10);
    assert.equal(linked.stale, true);
    assert.equal(linked.text, '');
    rmSync(indexed);
    // Even at the indexed size, other bytes are not the indexed file.
    writeFileSync(indexed, env.slice(0, 'export const attempts = 5;\n'.length));
    const copied = await e.getSnippet('app/retry.ts', 1, 10);
    assert.deepEqual([copied.stale, copied.text], [true, '']);
  });
});
