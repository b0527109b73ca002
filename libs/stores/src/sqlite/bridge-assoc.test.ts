/** The bridge's index-time co-occurrence table: written, kept up to date, read, and skipped when absent. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { type Chunk, chunkId, type FileRecord, type SymbolInfo, symbolId } from '@codesift/core';
import Database from 'better-sqlite3';
import type { FileCommit } from '../local-index.js';
import type { CooccurrenceQuery } from '../ports.js';
import { openSqliteIndex } from '../sqlite-index.js';
import { decodePairs, encodePairs } from './assoc-pairs.js';

const tmpRoot = mkdtempSync(path.join(tmpdir(), 'codesift-assoc-'));
after(() => rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;
function tmpFile(): string {
  n++;
  return path.join(tmpRoot, `t${n}`, 'index.db');
}

/** A file of chunks (one per body); `defines` names the symbol its first chunk defines. */
function file(p: string, bodies: string[], defines?: string): FileCommit {
  const chunks: Chunk[] = bodies.map((content, i) => ({
    id: chunkId(p, i * 10 + 1, i * 10 + 5, content),
    path: p,
    language: 'typescript',
    startLine: i * 10 + 1,
    endLine: i * 10 + 5,
    symbol: i === 0 && defines ? defines : null,
    kind: 'function',
    content,
  }));
  const symbols: SymbolInfo[] = defines
    ? [
        {
          id: symbolId(p, defines, 1),
          name: defines,
          qualifiedName: defines,
          kind: 'function',
          path: p,
          language: 'typescript',
          startLine: 1,
          endLine: 5,
          parent: null,
          signature: '',
          doc: '',
        },
      ]
    : [];
  const record: FileRecord = {
    path: p,
    hash: 'a'.repeat(64),
    size: 1,
    mtimeMs: 1,
    language: 'typescript',
    chunkCount: chunks.length,
    symbolCount: symbols.length,
    indexedAt: 1,
  };
  return { record, chunks, vectors: null, symbols };
}

/** Enough unrelated chunks that the fixture's words and identifiers are rare. */
const filler = file(
  'src/filler.ts',
  Array.from({ length: 100 }, (_, i) => `const value${i} = compute(${i});`),
);
const retry = file(
  'src/retry.ts',
  [
    'function retryRequest() { /* wait after a timeout, then retry */ }',
    'retryRequest(); // again on timeout, after the backoff',
  ],
  'retryRequest',
);
const caller = file('src/caller.ts', ['retryRequest(); // the backoff doubles']);

const query: CooccurrenceQuery = {
  words: ['timeout', 'backoff', 'doubles'],
  terms: ['retryrequest'],
  maxShare: 0.2,
};

/** The table's rows, each with its pairs as "word count word count ...". */
function table(file: string): { term: string; words: string }[] {
  const db = new Database(file, { readonly: true });
  try {
    const words = new Map(
      (db.prepare('SELECT id, word FROM bridge_words').all() as { id: number; word: string }[]).map(
        (r) => [r.id, r.word],
      ),
    );
    const rows = db.prepare('SELECT term, pairs FROM bridge_assoc ORDER BY term').all() as {
      term: string;
      pairs: Buffer;
    }[];
    return rows.map((r) => {
      const parts: string[] = [];
      decodePairs(r.pairs, (id, c) => parts.push(`${words.get(id)} ${c}`));
      return { term: r.term, words: parts.join(' ') };
    });
  } finally {
    db.close();
  }
}

test('bridge_assoc: written when the writer closes, with the pairs the bridge counts, and read by cooccurrence', async () => {
  const f = tmpFile();
  const w = openSqliteIndex(f);
  w.commitFiles([filler, retry, caller]);
  w.close();
  // timeout: 2 chunks with retryRequest; backoff: 2; doubles: 1 shared chunk only, not kept.
  const row = table(f).find((r) => r.term === 'retryrequest');
  assert.ok(row, 'retryRequest has a row');
  const words = Object.fromEntries(
    row.words.split(' ').flatMap((x, i, a) => (i % 2 === 0 ? [[x, Number(a[i + 1])]] : [])),
  );
  assert.equal(words.timeout, 2);
  assert.equal(words.backoff, 2);
  assert.equal(words.doubles, undefined);

  const r = openSqliteIndex(f, { readonly: true });
  assert.deepEqual((await r.keyword.cooccurrence!(query)).joint.retryrequest, {
    timeout: 2,
    backoff: 2,
  });
  r.close();
  // The reader answers from the table: a changed row is what it reports.
  const raw = new Database(f);
  const timeout = raw.prepare("SELECT id FROM bridge_words WHERE word = 'timeout'").pluck().get();
  raw
    .prepare("UPDATE bridge_assoc SET pairs = ? WHERE term = 'retryrequest'")
    .run(encodePairs([[timeout as number, 7]]));
  raw.close();
  const again = openSqliteIndex(f, { readonly: true });
  assert.deepEqual((await again.keyword.cooccurrence!(query)).joint.retryrequest, { timeout: 7 });
  again.close();
});

test("bridge_assoc: an incremental run recounts a changed file's identifiers; its old pairs go away", async () => {
  const f = tmpFile();
  const w = openSqliteIndex(f);
  w.commitFiles([filler, retry, caller]);
  w.close();
  const w2 = openSqliteIndex(f);
  // No chunk speaks of the backoff any more; three of a timeout.
  w2.commitFiles([
    file(
      'src/retry.ts',
      [
        'function retryRequest() { /* wait after a timeout, then retry */ }',
        'retryRequest(); // a timeout again',
      ],
      'retryRequest',
    ),
    file('src/caller.ts', ['retryRequest(); // up to a timeout']),
  ]);
  w2.close();
  const r = openSqliteIndex(f, { readonly: true });
  const c = await r.keyword.cooccurrence!(query);
  assert.deepEqual(c.joint.retryrequest, { timeout: 3 });
  r.close();

  // A removed file takes its share along.
  const w3 = openSqliteIndex(f);
  w3.removeFiles(['src/caller.ts']);
  w3.close();
  assert.match(table(f).find((x) => x.term === 'retryrequest')?.words ?? '', /\btimeout 2\b/);
  // And a removed definition its row: retryRequest is no symbol any more.
  const w4 = openSqliteIndex(f);
  w4.removeFiles(['src/retry.ts']);
  w4.close();
  assert.equal(
    table(f).find((x) => x.term === 'retryrequest'),
    undefined,
  );
});

test('bridge_assoc: while a writer has not flushed, readers count from the postings', async () => {
  const f = tmpFile();
  const w = openSqliteIndex(f);
  w.commitFiles([filler, retry, caller]);
  w.flushVectorIndex();
  w.commitFiles([file('src/more.ts', ['retryRequest(); // one more timeout'])]);
  const r = openSqliteIndex(f, { readonly: true });
  // Three chunks now hold both; the table still says two.
  assert.equal((await r.keyword.cooccurrence!(query)).joint.retryrequest?.timeout, 3);
  r.close();
  w.close();
  assert.match(table(f).find((x) => x.term === 'retryrequest')?.words ?? '', /timeout 3/);
});

test('bridge_assoc: an index without the table answers from the postings, read-only too, and a writer adds it', async () => {
  const f = tmpFile();
  const w = openSqliteIndex(f);
  w.commitFiles([filler, retry, caller]);
  w.close();
  // What an index written before the table looks like.
  const raw = new Database(f);
  raw.exec("DROP TABLE bridge_assoc; DELETE FROM meta WHERE key = 'bridge_assoc'");
  raw.close();
  const r = openSqliteIndex(f, { readonly: true });
  assert.deepEqual((await r.keyword.cooccurrence!(query)).joint.retryrequest, {
    timeout: 2,
    backoff: 2,
    doubles: 1,
  });
  r.close();
  openSqliteIndex(f).close();
  assert.ok(table(f).some((x) => x.term === 'retryrequest'));
});

test('bridge pairs: encoded and decoded back, ids as differences; bad pairs and cut rows refused', () => {
  const pairs: [number, number][] = [
    [300, 2],
    [5, 20_000],
    [1, 1],
    [2 ** 31, 3],
  ];
  const row = encodePairs(pairs);
  const back: [number, number][] = [];
  decodePairs(row, (id, c) => back.push([id, c]));
  assert.deepEqual(
    back,
    [...pairs].sort((a, b) => a[0] - b[0]),
  );
  assert.ok(row.length < 16, `${row.length} bytes`);
  assert.throws(
    () =>
      encodePairs([
        [1, 2],
        [1, 3],
      ]),
    RangeError,
  );
  assert.throws(() => encodePairs([[1, 0]]), RangeError);
  assert.throws(() => decodePairs(row.subarray(0, row.length - 1), () => {}), RangeError);
});
