// The symbols stage's write on a real SQLite index, no NATS: a batch
// replaces its files' symbols whole, so a redelivery changes nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createWork } from '@codesift/bus';
import type { SymbolInfo } from '@codesift/core';
import { openSqliteIndex, type SqliteLocalIndex } from '@codesift/stores';
import { symbolToWire } from '@codesift/wire';
import { storeSymbols } from './symbols.js';

let dir: string;
let index: SqliteLocalIndex;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'codesift-symbols-'));
  index = openSqliteIndex(path.join(dir, 'symbols.db'), { create: true });
});
after(() => {
  index.close();
  rmSync(dir, { recursive: true, force: true });
});

function symbol(file: string, name: string): SymbolInfo {
  return {
    id: `${file}:${name}`,
    name,
    qualifiedName: name,
    kind: 'function',
    path: file,
    language: 'typescript',
    startLine: 1,
    endLine: 2,
    parent: null,
    signature: `function ${name}()`,
    doc: '',
  };
}

function batch(files: Record<string, string[]>) {
  return createWork('symbols', {
    jobId: 'job',
    files: Object.entries(files).map(([file, names]) => ({
      path: file,
      language: 'typescript',
      hash: 'h',
      symbols: names.map((n) => symbolToWire(symbol(file, n))),
    })),
  });
}

test("a batch replaces its files' symbols whole and leaves other files alone", async () => {
  await storeSymbols(
    index.symbols,
    batch({ 'a.ts': ['addEdge', 'removeEdge'], 'b.ts': ['parse'] }),
  );
  // Redelivered: the same symbols, once each.
  await storeSymbols(
    index.symbols,
    batch({ 'a.ts': ['addEdge', 'removeEdge'], 'b.ts': ['parse'] }),
  );
  assert.deepEqual(
    (await index.symbols.lookup('addEdge')).map((s) => s.path),
    ['a.ts'],
  );
  // a.ts lost removeEdge and every other symbol: gone from the store; b.ts untouched.
  await storeSymbols(index.symbols, batch({ 'a.ts': ['addEdge'] }));
  assert.deepEqual(await index.symbols.lookup('removeEdge'), []);
  assert.deepEqual(
    (await index.symbols.lookup('parse')).map((s) => s.path),
    ['b.ts'],
  );
  await storeSymbols(index.symbols, batch({ 'a.ts': [] }));
  assert.deepEqual(await index.symbols.lookup('addEdge'), []);
});
