/** Co-occurrence counts from the FTS postings of a real SQLite index. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KeywordDoc } from '../ports.js';
import { openSqliteIndex } from '../sqlite-index.js';

function doc(id: string, content: string, symbol: string | null = null): KeywordDoc {
  return {
    id,
    path: `src/${id}.ts`,
    language: 'typescript',
    startLine: 1,
    endLine: 5,
    symbol,
    kind: 'function',
    content,
    context: '',
  };
}

test('keyword.cooccurrence: chunks holding a word and an identifier together, from the postings', async () => {
  const ix = openSqliteIndex(':memory:');
  await ix.keyword.upsert([
    doc('a', 'function retryRequest() { /* wait and retry after a timeout */ }', 'retryRequest'),
    doc('b', 'retryRequest(); // on timeout'),
    doc('c', 'const timeout = 5; // the wait, in seconds'),
    doc('d', 'function parseFlags(argv) { return argv; }', 'parseFlags'),
    doc('e', 'parseFlags(process.argv); // the flags, then wait'),
    ...Array.from({ length: 15 }, (_, i) => doc(`f${i}`, `const value${i} = compute(${i});`)),
  ]);
  const c = await ix.keyword.cooccurrence!({
    words: ['timeout', 'wait', 'absent'],
    terms: ['retryrequest', 'parseflags', 'nowhere'],
    maxShare: 0.2,
  });
  assert.equal(c.chunks, 20);
  assert.deepEqual(
    [c.df.timeout, c.df.wait, c.df.absent, c.df.retryrequest, c.df.parseflags, c.df.nowhere],
    [3, 3, 0, 2, 2, 0],
  );
  assert.deepEqual(c.joint.retryrequest, { timeout: 2, wait: 1 });
  assert.deepEqual(c.joint.parseflags, { wait: 1 });
  // A term in no chunk has no postings to read.
  assert.equal(c.joint.nowhere, undefined);

  // A word in more than maxShare of the chunks is counted, not read.
  const common = await ix.keyword.cooccurrence!({
    words: ['timeout', 'wait'],
    terms: ['retryrequest'],
    maxShare: 0.1,
  });
  assert.equal(common.df.timeout, 3);
  assert.equal(common.joint.retryrequest, undefined);
  ix.close();
});

test('keyword.cooccurrence: a term written like FTS5 syntax is searched as text', async () => {
  const ix = openSqliteIndex(':memory:');
  await ix.keyword.upsert([doc('a', 'or near timeout'), doc('b', 'other')]);
  const c = await ix.keyword.cooccurrence!({
    words: ['timeout'],
    terms: ['"or', 'near(', 'x:y'],
    maxShare: 1,
  });
  assert.equal(c.chunks, 2);
  ix.close();
});
