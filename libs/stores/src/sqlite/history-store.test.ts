/** The history store: replaced whole, searched by message, paths kept only while the index holds them. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { FileRecord } from '@codesift/core';
import type { HistoryCommit } from '../ports.js';
import { openSqliteIndex } from '../sqlite-index.js';
import { openHistoryFile } from './history-store.js';

const tmpRoot = mkdtempSync(path.join(tmpdir(), 'codesift-history-'));
after(() => rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;
function tmpFile(): string {
  n++;
  return path.join(tmpRoot, `t${n}`, 'index.db');
}

function record(p: string): FileRecord {
  return {
    path: p,
    hash: 'a'.repeat(64),
    size: 1,
    mtimeMs: 1,
    language: 'typescript',
    chunkCount: 0,
    symbolCount: 0,
    indexedAt: 1,
  };
}

const commits: HistoryCommit[] = [
  {
    sha: 'c1',
    time: 300,
    message: 'Fix the not-found handler for unsupported HTTP methods',
    paths: ['lib/route.js', 'lib/404.js', 'test/404.test.js'],
  },
  {
    sha: 'c2',
    time: 200,
    message: 'Parse the content type header lazily',
    paths: ['lib/parse.js'],
  },
  {
    sha: 'c3',
    time: 100,
    message: 'Handler docs: unsupported methods\n\nLonger body about handlers and handlers.',
    paths: ['docs/handlers.md', 'gone.js'],
  },
];

test('similar: best message first, with only the paths the index holds', async () => {
  const index = openSqliteIndex(tmpFile());
  try {
    await index.manifest.put(
      ['lib/route.js', 'lib/404.js', 'test/404.test.js', 'lib/parse.js', 'docs/handlers.md'].map(
        record,
      ),
    );
    assert.deepEqual(await index.history.similar(['handler'], 5), [], 'no history stored yet');
    assert.equal(await index.history.head(), null);
    await index.history.replace(commits, 'head1');
    assert.equal(await index.history.head(), 'head1');
    const found = await index.history.similar(['found', 'unsupported', 'methods'], 5);
    assert.deepEqual(
      found.map((m) => m.sha),
      ['c1', 'c3'],
    );
    assert.ok(found[0]!.score > found[1]!.score && found[1]!.score > 0);
    assert.deepEqual(
      found[0]!.files.map((f) => f.path),
      ['lib/404.js', 'lib/route.js', 'test/404.test.js'],
    );
    assert.equal(found[0]!.stored, 3);
    assert.deepEqual(
      found[0]!.files.map((f) => f.commits),
      [1, 1, 1],
    );
    assert.deepEqual(
      found[1]!.files.map((f) => f.path),
      ['docs/handlers.md'],
      'gone.js is not indexed',
    );
    assert.deepEqual(
      (await index.history.similar(['found', 'unsupported', 'methods'], 1)).map((m) => m.sha),
      ['c1'],
    );
    assert.deepEqual(await index.history.similar(['nothingmatches'], 5), []);
  } finally {
    index.close();
  }
});

test('replace drops the old history, and a read-only reader sees the new one', async () => {
  const file = tmpFile();
  const index = openSqliteIndex(file);
  await index.manifest.put(['lib/parse.js', 'lib/route.js'].map(record));
  await index.history.replace(commits, 'head1');
  await index.history.replace([{ ...commits[1]!, sha: 'c9', message: 'Route matching' }], 'head2');
  index.close();
  const reader = openSqliteIndex(file, { readonly: true });
  try {
    assert.equal(await reader.history.head(), 'head2');
    assert.deepEqual(await reader.history.similar(['parse'], 5), [], 'the old message is gone');
    assert.deepEqual(
      (await reader.history.similar(['route'], 5)).map((m) => [m.sha, m.files.map((f) => f.path)]),
      [['c9', ['lib/parse.js']]],
    );
  } finally {
    reader.close();
  }
});

test('an index written before the history existed reads as having none', async () => {
  const file = tmpFile();
  openSqliteIndex(file).close();
  const reader = openSqliteIndex(file, { readonly: true });
  try {
    assert.deepEqual(await reader.history.similar(['handler'], 5), []);
    assert.equal(await reader.history.head(), null);
  } finally {
    reader.close();
  }
});

test('openHistoryFile writes the history alone: no flush of anything else on close', async () => {
  const file = tmpFile();
  const index = openSqliteIndex(file);
  await index.manifest.put(['lib/parse.js'].map(record));
  index.close();
  const meta = () => {
    const r = openSqliteIndex(file, { readonly: true });
    const m = r.meta();
    r.close();
    return m.updatedAt;
  };
  const before = meta();
  const history = openHistoryFile(file);
  try {
    assert.equal(await history.head(), null);
    await history.replace(commits, 'head1');
    assert.equal(await history.head(), 'head1');
  } finally {
    history.close();
  }
  const reader = openSqliteIndex(file, { readonly: true });
  try {
    assert.deepEqual(
      (await reader.history.similar(['parse'], 5)).map((m) => [m.sha, m.files.map((f) => f.path)]),
      [['c2', ['lib/parse.js']]],
    );
  } finally {
    reader.close();
  }
  assert.equal(meta(), before, 'the index itself was not written');
  assert.throws(() => openHistoryFile(path.join(tmpRoot, 'missing.db')));
});

test('a reader opened before the history was written finds it once it is', async () => {
  const file = tmpFile();
  const writer = openSqliteIndex(file);
  await writer.manifest.put(['lib/parse.js'].map(record));
  writer.close();
  const reader = openSqliteIndex(file, { readonly: true });
  try {
    assert.deepEqual(await reader.history.similar(['parse'], 5), []);
    const history = openHistoryFile(file);
    await history.replace(commits, 'head1');
    history.close();
    assert.deepEqual(
      (await reader.history.similar(['parse'], 5)).map((m) => m.sha),
      ['c2'],
    );
  } finally {
    reader.close();
  }
});
