import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { analyzeQuery, wordStems } from '@codesift/analysis';
import {
  type Chunk,
  CodesiftError,
  chunkId,
  type ErrorCode,
  type FileRecord,
  type SymbolInfo,
  symbolId,
} from '@codesift/core';
import Database from 'better-sqlite3';
import {
  runKeywordIndexContract,
  runManifestContract,
  runSymbolIndexContract,
  runVectorIndexContract,
} from './contract.js';
import { defaultIndexPath } from './index-root.js';
import type { FileCommit, LocalIndex } from './local-index.js';
import { openSqliteIndex, SCHEMA_VERSION } from './sqlite-index.js';

const tmpRoot = mkdtempSync(path.join(tmpdir(), 'codesift-stores-'));
after(() => rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;
function tmpFile(): string {
  n++;
  return path.join(tmpRoot, `t${n}`, '.codesift', 'index.db');
}

function memory<T>(pick: (ix: LocalIndex) => T) {
  return () => {
    const ix = openSqliteIndex(':memory:');
    return { store: pick(ix), close: () => ix.close() };
  };
}

runKeywordIndexContract(
  'sqlite',
  memory((ix) => ix.keyword),
);
runSymbolIndexContract(
  'sqlite',
  memory((ix) => ix.symbols),
);
runManifestContract(
  'sqlite',
  memory((ix) => ix.manifest),
);
// On disk, so the vector contract also covers the file-backed vec0 table.
runVectorIndexContract('sqlite', ({ dimensions }) => {
  const ix = openSqliteIndex(tmpFile());
  ix.setEmbedder('test-embedder', dimensions);
  return { store: ix.vectors, close: () => ix.close() };
});

function isCode(code: ErrorCode) {
  return (e: unknown) => e instanceof CodesiftError && e.code === code;
}

const DIMS = 8;

function vec(seed: number): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = Math.sin(seed * 7.3 + i * 1.7);
  return v;
}

/** Distinct vector seed per (path, chunk index). */
function seedOf(p: string, i: number): number {
  let sum = 0;
  for (const ch of p) sum += ch.charCodeAt(0);
  return i * 1000 + sum;
}

function fileCommit(
  p: string,
  bodies: string[],
  opts: { vectors?: boolean; dims?: number } = {},
): FileCommit {
  const chunks: Chunk[] = bodies.map((content, i) => ({
    id: chunkId(p, i * 10 + 1, i * 10 + 5, content),
    path: p,
    language: 'typescript',
    startLine: i * 10 + 1,
    endLine: i * 10 + 5,
    symbol: `fn${i}`,
    kind: 'function',
    content,
    signature: `function fn${i}()`,
    doc: `Does thing ${i}.`,
    context: `In ${p}.`,
  }));
  const symbols: SymbolInfo[] = bodies.map((_, i) => ({
    id: symbolId(p, `fn${i}`, i * 10 + 1),
    name: `fn${i}`,
    qualifiedName: `fn${i}`,
    kind: 'function',
    path: p,
    language: 'typescript',
    startLine: i * 10 + 1,
    endLine: i * 10 + 5,
    parent: null,
    signature: `function fn${i}()`,
    doc: '',
  }));
  const record: FileRecord = {
    path: p,
    hash: 'a'.repeat(64),
    size: bodies.join('\n').length,
    mtimeMs: 1,
    language: 'typescript',
    chunkCount: chunks.length,
    symbolCount: symbols.length,
    indexedAt: Date.now(),
  };
  const withVectors = opts.vectors ?? true;
  const dims = opts.dims ?? DIMS;
  const vectors = withVectors
    ? chunks.map((_, i) => (dims === DIMS ? vec(seedOf(p, i)) : new Float32Array(dims)))
    : null;
  return { record, chunks, vectors, symbols };
}

async function keywordIds(ix: LocalIndex, q: string): Promise<string[]> {
  const hits = await ix.keyword.search({
    terms: analyzeQuery(q).map((term) => ({ term })),
    limit: 50,
  });
  return hits.map((h) => h.path).sort();
}

describe('SqliteIndex as LocalIndex', () => {
  test('defaultIndexPath is <root>/.codesift/index.db', () => {
    assert.equal(defaultIndexPath('/repo'), path.join('/repo', '.codesift', 'index.db'));
  });

  test('commitFiles writes chunks, vectors, symbols and manifest; chunks.get returns full chunks', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    const a = fileCommit('src/a.ts', ['alpha body', 'bravo body']);
    ix.commitFiles([a, fileCommit('src/b.ts', ['charlie body'])]);
    assert.deepEqual(
      { ...ix.stats(), bytes: 0 },
      { files: 2, chunks: 3, symbols: 3, vectors: 3, bytes: 0 },
    );
    assert.ok(ix.stats().bytes > 0);
    const got = await ix.chunks.get([a.chunks[1]!.id, 'missing', a.chunks[0]!.id]);
    assert.deepEqual(got, [a.chunks[1], a.chunks[0]]);
    assert.deepEqual(await ix.manifest.get('src/a.ts'), a.record);
    const records = await ix.manifest.getMany!(['src/a.ts', 'src/none.ts', 'src/b.ts']);
    assert.deepEqual([...records.keys()].sort(), ['src/a.ts', 'src/b.ts']);
    assert.deepEqual(records.get('src/a.ts'), a.record);
    const hits = await ix.vectors.search({ vector: vec(seedOf('src/a.ts', 0)), limit: 1 });
    assert.equal(hits[0]!.id, a.chunks[0]!.id);
    // Symbol and signature are searchable too.
    const bySymbol = await ix.keyword.search({ terms: [{ term: 'fn1' }], limit: 5 });
    assert.deepEqual(
      bySymbol.map((h) => h.symbol),
      ['fn1'],
    );
    ix.close();
  });

  test("symbols.inFile lists one file's symbols in source order, nothing for other paths", async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    ix.commitFiles([
      fileCommit('src/a.ts', ['one', 'two', 'three']),
      fileCommit('src/ab.ts', ['other']),
    ]);
    const names = async (p: string) => (await ix.symbols.inFile!(p)).map((s) => s.name);
    assert.deepEqual(await names('src/a.ts'), ['fn0', 'fn1', 'fn2']);
    assert.deepEqual(await names('src/ab.ts'), ['fn0']);
    assert.deepEqual(await names('src/a'), []);
    ix.close();
  });

  test('manifest.paths lists what manifest.all holds, sorted', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    assert.deepEqual(await ix.manifest.paths!(), []);
    ix.commitFiles([
      fileCommit('src/b.ts', ['b']),
      fileCommit('.github/ISSUE_TEMPLATE/bug.md', ['x']),
    ]);
    ix.commitFiles([fileCommit('src/a.ts', ['a'])]);
    assert.deepEqual(await ix.manifest.paths!(), [...(await ix.manifest.all()).keys()]);
    assert.deepEqual(await ix.manifest.paths!(), [
      '.github/ISSUE_TEMPLATE/bug.md',
      'src/a.ts',
      'src/b.ts',
    ]);
    ix.close();
  });

  test('manifest.paths(containing): the paths holding a substring, ASCII case aside, % and _ literal', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    ix.commitFiles(
      [
        'src/issue_template.ts',
        'src/issueXtemplate.ts',
        'docs/ISSUE_TEMPLATE.md',
        'pkg/.GitHub/bug.md',
        'src/100%.ts',
        'src/1000.ts',
      ].map((p) => fileCommit(p, ['x'])),
    );
    const paths = (...parts: string[]) => ix.manifest.paths!(parts);
    assert.deepEqual(await paths('issue_template'), [
      'docs/ISSUE_TEMPLATE.md',
      'src/issue_template.ts',
    ]);
    assert.deepEqual(await paths('.github/', '100%'), ['pkg/.GitHub/bug.md', 'src/100%.ts']);
    assert.deepEqual(await paths('nothing'), []);
    assert.equal((await ix.manifest.paths!([])).length, 6);
    ix.close();
  });

  test('symbols.inFiles answers what inFile answers per path, in one call', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    ix.commitFiles([
      fileCommit('src/a.ts', ['one', 'two', 'three']),
      fileCommit('src/ab.ts', ['other']),
      fileCommit('src/"ü" b.ts', ['x', 'y']),
    ]);
    const paths = ['src/ab.ts', 'src/"ü" b.ts', 'src/missing.ts', 'src/a.ts', 'src/ab.ts'];
    const batched = await ix.symbols.inFiles!(paths);
    assert.deepEqual(
      [...batched.keys()],
      ['src/ab.ts', 'src/"ü" b.ts', 'src/missing.ts', 'src/a.ts'],
    );
    for (const p of paths) assert.deepEqual(batched.get(p), await ix.symbols.inFile!(p), p);
    assert.deepEqual((await ix.symbols.inFiles!([])).size, 0);
    ix.close();
  });

  test('re-committing a file replaces it: no stale chunks, vectors or symbols', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    ix.commitFiles([
      fileCommit('src/a.ts', ['one oldterm', 'two oldterm', 'three oldterm']),
      fileCommit('src/b.ts', ['keep']),
    ]);
    ix.commitFiles([fileCommit('src/a.ts', ['one newterm'])]);
    assert.deepEqual(
      { ...ix.stats(), bytes: 0 },
      { files: 2, chunks: 2, symbols: 2, vectors: 2, bytes: 0 },
    );
    assert.deepEqual(await keywordIds(ix, 'oldterm'), []);
    assert.deepEqual(await keywordIds(ix, 'newterm'), ['src/a.ts']);
    assert.deepEqual(await ix.symbols.lookup('fn1'), []);
    assert.equal((await ix.manifest.get('src/a.ts'))?.chunkCount, 1);
    ix.close();
  });

  test('commitFiles is atomic: a bad vector in the last file rolls back the whole batch', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    ix.commitFiles([fileCommit('src/a.ts', ['original alpha'])]);
    const before = ix.stats();
    assert.throws(
      () =>
        ix.commitFiles([
          fileCommit('src/a.ts', ['replacement alpha']),
          fileCommit('src/new.ts', ['fresh file']),
          fileCommit('src/bad.ts', ['bad vector'], { dims: DIMS + 1 }),
        ]),
      isCode('INVALID_ARGUMENT'),
    );
    assert.deepEqual(ix.stats(), before);
    assert.deepEqual(await keywordIds(ix, 'original'), ['src/a.ts']);
    assert.deepEqual(await keywordIds(ix, 'replacement fresh'), []);
    assert.equal(await ix.manifest.get('src/new.ts'), undefined);
    // Vectors count mismatch is refused the same way.
    const c = fileCommit('src/c.ts', ['x1', 'x2']);
    assert.throws(
      () => ix.commitFiles([{ ...c, vectors: c.vectors!.slice(1) }]),
      isCode('INVALID_ARGUMENT'),
    );
    assert.deepEqual(ix.stats(), before);
    ix.close();
  });

  test('vectors are refused without an embedder; vectors: null is fine', () => {
    const ix = openSqliteIndex(':memory:');
    assert.throws(
      () => ix.commitFiles([fileCommit('src/a.ts', ['x'])]),
      isCode('INVALID_ARGUMENT'),
    );
    ix.commitFiles([fileCommit('src/a.ts', ['x'], { vectors: false })]);
    assert.equal(ix.stats().vectors, 0);
    ix.close();
  });

  test('removeFiles removes files and everything derived from them', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    ix.commitFiles([
      fileCommit('src/a.ts', ['shared one', 'shared two']),
      fileCommit('src/b.ts', ['shared three']),
    ]);
    ix.removeFiles(['src/a.ts', 'src/missing.ts']);
    assert.deepEqual(
      { ...ix.stats(), bytes: 0 },
      { files: 1, chunks: 1, symbols: 1, vectors: 1, bytes: 0 },
    );
    assert.deepEqual(await keywordIds(ix, 'shared'), ['src/b.ts']);
    assert.deepEqual([...(await ix.manifest.all()).keys()], ['src/b.ts']);
    ix.close();
  });

  test('removing the last file of a repository forgets it; its name may then be reused anywhere', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', DIMS);
    ix.setRoot('/r/api', 'api');
    ix.setRoot('/r/web', 'web');
    ix.commitFiles([
      fileCommit('api/a.ts', ['one']),
      fileCommit('api/b.ts', ['two']),
      fileCommit('web/c.ts', ['three']),
    ]);
    ix.removeFiles(['api/a.ts']);
    assert.deepEqual(
      ix.meta().repositories,
      { api: '/r/api', web: '/r/web' },
      'api still has b.ts',
    );
    ix.removeFiles(['api/b.ts']);
    assert.deepEqual(ix.meta().repositories, { web: '/r/web' });
    ix.removeFiles(['web/c.ts']);
    assert.deepEqual(ix.meta().repositories, {});
    // Emptied of repositories, the index may hold an unnamed tree again.
    ix.setRoot('/src/tree');
    assert.equal(ix.meta().root, '/src/tree');
    ix.close();
  });

  test('reopen persists data and meta; readonly refuses writes', async () => {
    const file = tmpFile();
    const ix = openSqliteIndex(file);
    ix.setEmbedder('test', DIMS);
    ix.commitFiles([fileCommit('src/a.ts', ['persisted token'])]);
    const meta = ix.meta();
    ix.close();
    assert.equal(meta.schemaVersion, SCHEMA_VERSION);
    assert.equal(meta.embedder, 'test');
    assert.equal(meta.dimensions, DIMS);
    assert.ok(meta.updatedAt >= meta.createdAt);

    const ro = openSqliteIndex(file, { readonly: true });
    assert.deepEqual(ro.meta(), meta);
    assert.deepEqual(await keywordIds(ro, 'persisted'), ['src/a.ts']);
    assert.equal((await ro.vectors.search({ vector: vec(8), limit: 1 })).length, 1);
    // Long queries use a temp vocabulary table, which must work read-only.
    const many = Array.from({ length: 100 }, (_, i) => ({ term: `t${i}` })).concat([
      { term: 'persisted' },
    ]);
    assert.equal((await ro.keyword.search({ terms: many, limit: 5 })).length, 1);
    assert.throws(() => ro.commitFiles([]), isCode('INVALID_ARGUMENT'));
    ro.close();

    const again = openSqliteIndex(file, { create: false });
    ix.close(); // closing twice is harmless
    assert.equal(again.stats().chunks, 1);
    again.setEmbedder('test', DIMS); // same embedder: no-op
    again.close();
  });

  test('a different embedder on an index with files is INDEX_INCOMPATIBLE; on an empty one it switches', () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('first', DIMS);
    ix.setEmbedder('second', 16);
    assert.equal(ix.meta().embedder, 'second');
    ix.commitFiles([fileCommit('src/a.ts', ['x'], { dims: 16 })]);
    assert.throws(() => ix.setEmbedder('third', 16), isCode('INDEX_INCOMPATIBLE'));
    assert.throws(() => ix.setEmbedder('second', 32), isCode('INDEX_INCOMPATIBLE'));
    assert.throws(() => ix.setEmbedder(null, null), isCode('INDEX_INCOMPATIBLE'));
    assert.throws(() => ix.setEmbedder('x', null), isCode('INVALID_ARGUMENT'));
    ix.close();
    const noVec = openSqliteIndex(':memory:');
    noVec.commitFiles([fileCommit('src/a.ts', ['x'], { vectors: false })]);
    assert.throws(
      () => noVec.setEmbedder('late', DIMS),
      (e: unknown) => {
        return (
          e instanceof CodesiftError &&
          e.code === 'INDEX_INCOMPATIBLE' &&
          /rebuild/.test(e.hint ?? '')
        );
      },
    );
    noVec.close();
  });

  test('missing file with create:false is INDEX_NOT_FOUND', () => {
    const file = path.join(tmpRoot, 'nope', 'index.db');
    assert.throws(() => openSqliteIndex(file, { create: false }), isCode('INDEX_NOT_FOUND'));
    assert.throws(() => openSqliteIndex(file, { readonly: true }), isCode('INDEX_NOT_FOUND'));
  });

  test('random bytes, a truncated file and a foreign database are INDEX_CORRUPT', () => {
    const hint = (e: unknown) =>
      e instanceof CodesiftError && e.code === 'INDEX_CORRUPT' && /rebuild/.test(e.hint ?? '');
    const random = tmpFile();
    const ix0 = openSqliteIndex(random); // creates the directory
    ix0.close();
    const bytes = Buffer.alloc(64 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    writeFileSync(random, bytes);
    assert.throws(() => openSqliteIndex(random), hint);

    const truncated = tmpFile();
    const ix = openSqliteIndex(truncated);
    ix.commitFiles(
      Array.from({ length: 50 }, (_, i) =>
        fileCommit(`src/f${i}.ts`, [`body ${'x'.repeat(2000)} ${i}`], { vectors: false }),
      ),
    );
    ix.close();
    truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
    assert.throws(() => openSqliteIndex(truncated), hint);

    const foreign = tmpFile();
    const ix2 = openSqliteIndex(foreign);
    ix2.close();
    rmSync(foreign);
    const db = new Database(foreign);
    db.exec('CREATE TABLE other (x)');
    db.close();
    assert.throws(() => openSqliteIndex(foreign), hint);
  });

  test('corruption found after opening is INDEX_CORRUPT too', async () => {
    const file = tmpFile();
    const ix = openSqliteIndex(file);
    ix.commitFiles(
      Array.from({ length: 200 }, (_, i) =>
        fileCommit(`src/f${i}.ts`, [`token${i} ${'y'.repeat(3000)}`], { vectors: false }),
      ),
    );
    ix.close();
    // Scribble over the middle of the file, keeping the header and length intact.
    const buf = readFileSync(file);
    for (let i = Math.floor(buf.length / 3); i < buf.length - 4096; i++) buf[i] = (i * 31) & 0xff;
    writeFileSync(file, buf);
    let err: unknown;
    try {
      const broken = openSqliteIndex(file);
      try {
        await broken.keyword.search({ terms: [{ term: 'token5' }], limit: 5 });
        await broken.chunks.get(['x']);
        broken.stats();
        await broken.manifest.all();
      } finally {
        broken.close();
      }
    } catch (e) {
      err = e;
    }
    assert.ok(isCode('INDEX_CORRUPT')(err), `expected INDEX_CORRUPT, got ${String(err)}`);
  });

  test('context sources round-trip; an index from before the columns opens read-only as is', async () => {
    const file = tmpFile();
    const ix = openSqliteIndex(file);
    ix.setEmbedder('test', DIMS);
    const a = fileCommit('src/a.ts', ['from the model', 'pattern instead']);
    a.chunks[0]!.contextSource = 'llm';
    a.chunks[1]!.contextSource = 'pattern';
    a.chunks[1]!.contextFallback = 'timeout';
    ix.commitFiles([a]);
    assert.deepEqual(await ix.chunks.get(a.chunks.map((c) => c.id)), a.chunks);
    ix.close();

    // The index as an earlier codesift wrote it: no context_ columns.
    const db = new Database(file);
    db.exec('ALTER TABLE chunks DROP COLUMN context_source');
    db.exec('ALTER TABLE chunks DROP COLUMN context_fallback');
    db.close();
    const columns = () => {
      const raw = new Database(file, { readonly: true });
      const names = (raw.prepare('PRAGMA table_info(chunks)').all() as { name: string }[]).map(
        (c) => c.name,
      );
      raw.close();
      return names.filter((n) => n.startsWith('context_'));
    };
    const ro = openSqliteIndex(file, { readonly: true });
    const old = await ro.chunks.get([a.chunks[1]!.id]);
    assert.equal(old[0]!.content, 'pattern instead');
    assert.equal(old[0]!.contextSource, undefined);
    assert.equal(old[0]!.contextFallback, undefined);
    assert.deepEqual(await keywordIds(ro, 'pattern'), ['src/a.ts']);
    ro.close();
    assert.deepEqual(columns(), []);

    // A writer adds them; old rows stay unrecorded, new ones are recorded.
    const w = openSqliteIndex(file);
    assert.deepEqual(columns(), ['context_source', 'context_fallback']);
    assert.equal((await w.chunks.get([a.chunks[0]!.id]))[0]!.contextSource, undefined);
    const b = fileCommit('src/b.ts', ['fresh']);
    b.chunks[0]!.contextSource = 'llm';
    w.commitFiles([b]);
    assert.deepEqual(await w.chunks.get([b.chunks[0]!.id]), b.chunks);
    w.close();
  });

  test('another schema version is INDEX_INCOMPATIBLE', () => {
    for (const version of [SCHEMA_VERSION + 1, SCHEMA_VERSION - 1]) {
      const file = tmpFile();
      openSqliteIndex(file).close();
      const db = new Database(file);
      db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(version));
      db.close();
      assert.throws(() => openSqliteIndex(file), isCode('INDEX_INCOMPATIBLE'));
    }
  });

  test('filtered vector search stays exact on the KNN over-fetch and scan paths', async () => {
    const ix = openSqliteIndex(':memory:');
    ix.setEmbedder('test', 4);
    const records = [];
    // 3000 vectors near the query under src/, and a filtered set of 1500 under far/ that are all
    // farther than every src/ vector: over-fetching KNN cannot reach them, the scan must.
    for (let i = 0; i < 3000; i++) {
      records.push({
        id: `n${i}`,
        path: `src/n${i}.ts`,
        language: 'typescript',
        vector: Float32Array.from([1, i / 1e4, 0, 0]),
      });
    }
    for (let i = 0; i < 1500; i++) {
      records.push({
        id: `f${i}`,
        path: `far/f${i}.ts`,
        language: 'typescript',
        vector: Float32Array.from([1e-3 * (1500 - i), 1, 0, 0]),
      });
    }
    await ix.vectors.upsert(records);
    const q = Float32Array.from([1, 0, 0, 0]);
    const far = await ix.vectors.search({
      vector: q,
      limit: 3,
      filter: { pathPrefixes: ['far/'] },
    });
    assert.deepEqual(
      far.map((h) => h.id),
      ['f0', 'f1', 'f2'],
    );
    const near = await ix.vectors.search({
      vector: q,
      limit: 3,
      filter: { excludePathPrefixes: ['far/'] },
    });
    assert.deepEqual(
      near.map((h) => h.id),
      ['n0', 'n1', 'n2'],
    );
    ix.close();
  });
});

function relatedSymbol(name: string, doc: string, p = 'src/a.ts', line = 1): SymbolInfo {
  return {
    id: symbolId(p, name, line),
    name,
    qualifiedName: name,
    kind: 'function',
    path: p,
    language: 'typescript',
    startLine: line,
    endLine: line + 1,
    parent: null,
    signature: '',
    doc,
  };
}

test('symbols.related: names and doc comments sharing a stem, best first, one per name', async () => {
  const ix = openSqliteIndex(':memory:');
  await ix.symbols.upsert([
    relatedSymbol('addEdge', 'Links two nodes.'),
    relatedSymbol('addEdge', '', 'src/b.ts', 5),
    relatedSymbol('GraphStore', 'Holds edges and nodes.'),
    relatedSymbol('parseFlags', 'Reads switches.'),
  ]);
  const names = (await ix.symbols.related!(['edge', 'graph'])).map((x) => x.name);
  // GraphStore: graph in the name (2) + edge in the doc (1); addEdge: edge in the name.
  assert.deepEqual(names.slice(0, 2), ['GraphStore', 'addEdge']);
  assert.ok(!names.includes('parseFlags'));
  assert.equal(names.filter((n) => n === 'addEdge').length, 1);
  assert.deepEqual(await ix.symbols.related!([]), []);
  ix.close();
});

test('symbols.related follows writes through this connection and through another one', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'codesift-related-')), 'index.db');
  const writer = openSqliteIndex(file);
  const reader = openSqliteIndex(file);
  const names = async (ix: LocalIndex) => (await ix.symbols.related!(['edge'])).map((x) => x.name);
  try {
    await writer.symbols.upsert([relatedSymbol('addEdge', '')]);
    assert.deepEqual(await names(writer), ['addEdge']);
    assert.deepEqual(await names(reader), ['addEdge']);
    // Our own write, then another connection's: neither answer may come from the first table.
    await writer.symbols.upsert([relatedSymbol('EdgeList', '', 'src/b.ts')]);
    assert.deepEqual(await names(writer), ['addEdge', 'EdgeList']);
    await reader.symbols.deleteByPaths(['src/a.ts']);
    await reader.symbols.upsert([relatedSymbol('edges', '', 'src/c.ts')]);
    assert.deepEqual(await names(reader), ['edges', 'EdgeList']);
    assert.deepEqual(await names(writer), ['edges', 'EdgeList']);
  } finally {
    writer.close();
    reader.close();
    rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

describe('file texts', () => {
  test('kept with a commit that carries one, dropped by one that does not and by removal', async () => {
    const file = tmpFile();
    const ix = openSqliteIndex(file);
    ix.commitFiles([
      { ...fileCommit('a.ts', ['const a = 1;'], { vectors: false }), text: 'const a = 1;\n' },
      { ...fileCommit('b.ts', ['const b = 1;'], { vectors: false }), text: 'const b = 1;\n' },
    ]);
    assert.equal(await ix.fileTexts.get('a.ts'), 'const a = 1;\n');
    assert.deepEqual(
      await ix.fileTexts.stored!(['a.ts', 'b.ts', 'c.ts']),
      new Set(['a.ts', 'b.ts']),
    );
    ix.commitFiles([fileCommit('a.ts', ['const a = 2;'], { vectors: false })]);
    assert.equal(await ix.fileTexts.get('a.ts'), undefined);
    assert.deepEqual(await ix.fileTexts.stored!(['a.ts', 'b.ts']), new Set(['b.ts']));
    ix.removeFiles(['b.ts']);
    assert.equal(await ix.fileTexts.get('b.ts'), undefined);
    assert.deepEqual(await ix.fileTexts.stored!(['a.ts', 'b.ts']), new Set());
    ix.close();
  });

  test('an index written before the table existed: a reader finds no text, a writer adds the table', async () => {
    const file = tmpFile();
    openSqliteIndex(file).close();
    const db = new Database(file);
    db.exec('DROP TABLE file_texts');
    db.close();
    const reader = openSqliteIndex(file, { readonly: true });
    assert.equal(await reader.fileTexts.get('a.ts'), undefined);
    assert.deepEqual(await reader.fileTexts.stored!(['a.ts']), new Set());
    reader.close();
    const writer = openSqliteIndex(file);
    writer.commitFiles([{ ...fileCommit('a.ts', ['x'], { vectors: false }), text: 'x\n' }]);
    assert.equal(await writer.fileTexts.get('a.ts'), 'x\n');
    writer.close();
  });
});

test('symbols.related ranks as a full sort would: score, then shorter names, then locale order', async () => {
  // Many ties (few words, repeated names, mixed case) so the partial sort is exercised.
  let x = 7;
  const random = () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
  const parts = ['edge', 'Edge', 'graph', 'node', 'add', 'Remove', 'list', 'set'];
  const pick = () => parts[Math.floor(random() * parts.length)]!;
  const symbols: SymbolInfo[] = [];
  for (let i = 0; i < 600; i++) {
    const name = `${pick()}${pick()}${random() < 0.5 ? pick() : ''}`;
    const doc = random() < 0.5 ? `Keeps the ${pick()} and the ${pick()}.` : '';
    symbols.push(relatedSymbol(name, doc, `src/f${i % 37}.ts`, i + 1));
  }
  const ix = openSqliteIndex(':memory:');
  await ix.symbols.upsert(symbols);
  const words = ['edge', 'graph', 'node'];
  // The reference: score every symbol, keep each name's first best, sort all.
  const best = new Map<string, { s: SymbolInfo; score: number }>();
  for (const s of symbols) {
    const inName = new Set(wordStems(s.name));
    const inDoc = new Set(wordStems(s.doc));
    let score = 0;
    for (const w of words) score += inName.has(w) ? 2 : inDoc.has(w) ? 1 : 0;
    const prev = best.get(s.name);
    if (score > 0 && (!prev || prev.score < score)) best.set(s.name, { s, score });
  }
  const want = [...best.values()]
    .sort(
      (a, b) =>
        b.score - a.score || a.s.name.length - b.s.name.length || a.s.name.localeCompare(b.s.name),
    )
    .map((b) => `${b.s.name}@${b.s.path}:${b.s.startLine}`);
  for (const limit of [1, 7, 40, 1000]) {
    const got = (await ix.symbols.related!(words, { limit })).map(
      (s) => `${s.name}@${s.path}:${s.startLine}`,
    );
    assert.deepEqual(got, want.slice(0, limit), `limit ${limit}`);
  }
  ix.close();
});
