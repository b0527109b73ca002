// The symbol service over a real nats-server and a real SQLite symbol
// store: NatsSymbolIndex must answer what the store answers directly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { CodesiftError, type SymbolInfo } from '@codesift/core';
import { openSqliteIndex, type SqliteLocalIndex } from '@codesift/stores';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { NatsSymbolIndex } from './symbol-client.js';
import { lazySymbolReader, serveSymbolIndex } from './symbol-service.js';

function sym(
  name: string,
  qualifiedName: string,
  p: string,
  line: number,
  kind = 'function',
): SymbolInfo {
  return {
    id: `${p}:${qualifiedName}:${line}`,
    name,
    qualifiedName,
    kind: kind as SymbolInfo['kind'],
    path: p,
    language: 'typescript',
    startLine: line,
    endLine: line + 3,
    parent: qualifiedName.includes('.') ? qualifiedName.split('.')[0]! : null,
    signature: `${name}()`,
    doc: `Docs of ${name}.`,
  };
}

const SYMBOLS = [
  sym('Graph', 'Graph', 'src/graph.ts', 1, 'class'),
  sym('addEdge', 'Graph.addEdge', 'src/graph.ts', 5, 'method'),
  sym('addNode', 'Graph.addNode', 'src/graph.ts', 12, 'method'),
  sym('addEdge', 'Tree.addEdge', 'src/tree.ts', 3, 'method'),
  sym('parseConfig', 'parseConfig', 'src/config.ts', 1),
];

describe('symbol service over NATS', () => {
  let dir: string;
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let index: SqliteLocalIndex;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-symsvc-'));
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    index = openSqliteIndex(path.join(dir, 'symbols.db'), { create: true });
    await index.symbols.upsert(SYMBOLS);
  });
  after(async () => {
    index?.close();
    await nc?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('lookup, vocabulary and count answer what the store answers', async () => {
    const service = serveSymbolIndex(nc, index.symbols);
    const client = new NatsSymbolIndex(nc);
    try {
      for (const [name, opts] of [
        ['addEdge', {}],
        ['Graph.addEdge', {}],
        ['add', { limit: 2 }],
        ['addEdge', { kind: 'method', limit: 1 }],
        ['nothing', {}],
      ] as const) {
        const viaNats = await client.lookup(name, opts);
        assert.deepEqual(viaNats, await index.symbols.lookup(name, opts), name);
      }
      assert.equal((await client.lookup('addEdge')).length, 2);
      assert.deepEqual(await client.vocabulary(), await index.symbols.vocabulary());
      assert.deepEqual(await client.vocabulary({ prefix: 'add', limit: 1 }), [
        { name: 'addEdge', count: 2 },
      ]);
      assert.equal(await client.count(), SYMBOLS.length);
      // The vocabulary slice the LLM rewrite sends: name parts, then doc words.
      for (const [words, opts] of [
        [['edge'], {}],
        [['add', 'node'], {}],
        [['add'], { limit: 2 }],
        [['doc', 'config'], {}],
        [['nothing'], {}],
        [[], {}],
      ] as const) {
        const viaNats = await client.related(words, opts);
        assert.deepEqual(viaNats, await index.symbols.related!(words, opts), words.join(' '));
      }
      assert.deepEqual(
        (await client.related(['add', 'node'])).map((s) => s.qualifiedName),
        ['Graph.addNode', 'Graph.addEdge'],
      );
    } finally {
      await service.stop();
    }
  });

  test('two replicas share the requests', async () => {
    const counts = [0, 0];
    const replicas = [0, 1].map((i) =>
      serveSymbolIndex(nc, {
        lookup: async (name, o) => {
          counts[i]!++;
          await new Promise((r) => setTimeout(r, 5));
          return index.symbols.lookup(name, o);
        },
        vocabulary: (o) => index.symbols.vocabulary(o),
        count: () => index.symbols.count(),
      }),
    );
    const client = new NatsSymbolIndex(nc);
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, () => client.lookup('Graph')));
      for (const a of answers) assert.equal(a[0]?.qualifiedName, 'Graph');
      assert.equal(counts[0]! + counts[1]!, 40);
      assert.ok(counts[0]! > 0 && counts[1]! > 0, `both answered: ${counts.join('/')}`);
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  });

  test('no symbol service, a slow one, and writes: clear errors', async () => {
    const client = new NatsSymbolIndex(nc, { timeoutMs: 150 });
    await assert.rejects(
      client.lookup('Graph'),
      (e: unknown) =>
        e instanceof CodesiftError &&
        e.code === 'UNAVAILABLE' &&
        /no symbols service answers/.test(e.message),
    );
    let release!: () => void;
    const gate = new Promise<never[]>((r) => {
      release = () => r([]);
    });
    const slow = serveSymbolIndex(nc, {
      lookup: () => gate,
      vocabulary: () => index.symbols.vocabulary(),
      count: () => index.symbols.count(),
    });
    try {
      await assert.rejects(client.lookup('Graph'), { code: 'TIMEOUT' });
      assert.equal(await client.count(), SYMBOLS.length, 'other requests still answered');
    } finally {
      release();
      await slow.stop();
    }
    const unrelated = serveSymbolIndex(nc, {
      lookup: (name, o) => index.symbols.lookup(name, o),
      vocabulary: (o) => index.symbols.vocabulary(o),
      count: () => index.symbols.count(),
    });
    try {
      await assert.rejects(client.related(['edge']), {
        code: 'INTERNAL',
        message: /symbols: this symbol store cannot list related symbols/,
      });
    } finally {
      await unrelated.stop();
    }
    await assert.rejects(
      client.upsert(),
      (err) => err instanceof CodesiftError && /written by the pipeline/.test(err.message),
    );
    await assert.rejects(client.deleteByPaths(), /NatsSymbolIndex\.deleteByPaths/);
  });

  test('a lazy reader opens the store on first use and again after a failed open', async () => {
    const file = path.join(dir, 'later.db');
    let opens = 0;
    const lazy = lazySymbolReader(() => {
      opens++;
      return openSqliteIndex(file, { readonly: true });
    });
    const service = serveSymbolIndex(nc, lazy.reader);
    const client = new NatsSymbolIndex(nc);
    try {
      assert.equal(opens, 0, 'not opened before the first request');
      // The writer has not created it yet: the request fails, the service stays up.
      await assert.rejects(client.count());
      const writer = openSqliteIndex(file, { create: true });
      await writer.symbols.upsert(SYMBOLS.slice(0, 2));
      assert.equal(await client.count(), 2);
      // Later writes are visible to the open read-only store.
      await writer.symbols.upsert(SYMBOLS.slice(2));
      assert.equal(await client.count(), SYMBOLS.length);
      writer.close();
      assert.equal(opens, 2);
    } finally {
      await service.stop();
      lazy.close();
    }
  });
});
