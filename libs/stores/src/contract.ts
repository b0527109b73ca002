/**
 * Contract suites every store implementation runs (SQLite here, Qdrant in
 * @codesift/stores-qdrant, Elasticsearch in @codesift/stores-elasticsearch
 * and @codesift/stores-cluster), so all behave the same behind the ports.
 * Each test gets a fresh, empty store from the factory and closes it
 * afterwards. Writes must be visible to reads once their promise resolves.
 *
 * Imported from `@codesift/stores/contract`; uses node:test internally.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyzeQuery } from '@codesift/analysis';
import { CodesiftError, type FileRecord, type SymbolInfo, type UnitKind } from '@codesift/core';
import type {
  KeywordDoc,
  KeywordIndex,
  KeywordTerm,
  Manifest,
  SymbolIndex,
  VectorIndex,
  VectorRecord,
} from './ports.js';

/** A store under test and how to dispose of it. */
export interface ContractSubject<T> {
  store: T;
  close(): void | Promise<void>;
}

export type ContractFactory<T> = () => ContractSubject<T> | Promise<ContractSubject<T>>;
/** Vector stores need their dimension up front. */
export type VectorContractFactory = (opts: {
  dimensions: number;
}) => ContractSubject<VectorIndex> | Promise<ContractSubject<VectorIndex>>;

async function withStore<T>(
  factory: () => ContractSubject<T> | Promise<ContractSubject<T>>,
  fn: (store: T) => Promise<void>,
): Promise<void> {
  const subject = await factory();
  try {
    await fn(subject.store);
  } finally {
    await subject.close();
  }
}

function doc(id: string, content: string, over: Partial<KeywordDoc> = {}): KeywordDoc {
  return {
    id,
    path: `src/${id}.ts`,
    language: 'typescript',
    startLine: 1,
    endLine: 10,
    symbol: null,
    kind: 'block',
    content,
    context: '',
    ...over,
  };
}

function terms(text: string, boost?: number): KeywordTerm[] {
  return analyzeQuery(text).map((term) => (boost === undefined ? { term } : { term, boost }));
}

/** Filler docs so IDF behaves like in a real corpus (a term in every doc has no weight). */
function filler(n: number): KeywordDoc[] {
  return Array.from({ length: n }, (_, i) =>
    doc(`filler${i}`, `const value${i} = compute(input${i}); return value${i};`, {
      path: `lib/filler${i}.js`,
      language: 'javascript',
    }),
  );
}

export function runKeywordIndexContract(
  name: string,
  factory: ContractFactory<KeywordIndex>,
): void {
  const run = (fn: (s: KeywordIndex) => Promise<void>) => () => withStore(factory, fn);

  describe(`KeywordIndex contract: ${name}`, () => {
    test(
      'upsert then search finds the doc with its fields',
      run(async (s) => {
        await s.upsert([
          doc('a', 'export class OllamaEmbedder { embed(texts) {} }', {
            symbol: 'OllamaEmbedder',
            kind: 'class',
            startLine: 3,
            endLine: 7,
          }),
          ...filler(5),
        ]);
        const hits = await s.search({ terms: terms('ollama embedder'), limit: 10 });
        assert.equal(hits.length, 1);
        const h = hits[0]!;
        assert.deepEqual(
          { ...h, score: 0 },
          {
            id: 'a',
            path: 'src/a.ts',
            startLine: 3,
            endLine: 7,
            symbol: 'OllamaEmbedder',
            kind: 'class',
            language: 'typescript',
            score: 0,
          },
        );
        assert.ok(h.score > 0, 'score is positive, higher is better');
        assert.equal(await s.count(), 6);
      }),
    );

    test(
      'upsert is idempotent by id and replaces the content',
      run(async (s) => {
        await s.upsert([doc('a', 'alpha bravo'), ...filler(3)]);
        await s.upsert([doc('a', 'alpha bravo')]);
        await s.upsert([doc('a', 'charlie delta')]);
        assert.equal(await s.count(), 4);
        assert.deepEqual(await s.search({ terms: terms('bravo'), limit: 10 }), []);
        const hits = await s.search({ terms: terms('charlie'), limit: 10 });
        assert.deepEqual(
          hits.map((h) => h.id),
          ['a'],
        );
      }),
    );

    test(
      'deleteByPaths removes only those paths',
      run(async (s) => {
        await s.upsert([
          doc('a1', 'shared token', { path: 'src/a.ts', startLine: 1 }),
          doc('a2', 'shared token', { path: 'src/a.ts', startLine: 20 }),
          doc('b', 'shared token', { path: 'src/b.ts' }),
          doc('ab', 'shared token', { path: 'src/a.tsx' }),
          ...filler(5),
        ]);
        await s.deleteByPaths(['src/a.ts', 'does/not/exist.ts']);
        await s.deleteByPaths([]);
        const hits = await s.search({ terms: terms('shared'), limit: 10 });
        assert.deepEqual(hits.map((h) => h.id).sort(), ['ab', 'b']);
        assert.equal(await s.count(), 7);
      }),
    );

    test(
      'filters by language and path prefix, include and exclude',
      run(async (s) => {
        await s.upsert([
          doc('ts1', 'parse config', { path: 'src/config/load.ts' }),
          doc('ts2', 'parse config', { path: 'test/config.test.ts' }),
          doc('py1', 'parse config', { path: 'src/config/load.py', language: 'python' }),
          doc('md1', 'parse config', { path: 'docs/config.md', language: 'markdown' }),
          ...filler(8),
        ]);
        const ids = async (filter: object) =>
          (await s.search({ terms: terms('parse config'), limit: 10, filter }))
            .map((h) => h.id)
            .sort();
        assert.deepEqual(await ids({ languages: ['typescript'] }), ['ts1', 'ts2']);
        assert.deepEqual(await ids({ languages: ['typescript', 'python'] }), ['py1', 'ts1', 'ts2']);
        assert.deepEqual(await ids({ pathPrefixes: ['src/'] }), ['py1', 'ts1']);
        assert.deepEqual(await ids({ pathPrefixes: ['src/', 'docs/'] }), ['md1', 'py1', 'ts1']);
        assert.deepEqual(await ids({ excludePathPrefixes: ['src/', 'test/'] }), ['md1']);
        assert.deepEqual(
          await ids({
            languages: ['typescript'],
            pathPrefixes: ['src/', 'test/'],
            excludePathPrefixes: ['test/'],
          }),
          ['ts1'],
        );
        assert.deepEqual(await ids({ languages: ['rust'] }), []);
        assert.deepEqual(await ids({ languages: [], pathPrefixes: [], excludePathPrefixes: [] }), [
          'md1',
          'py1',
          'ts1',
          'ts2',
        ]);
      }),
    );

    test(
      'more matching terms rank higher; a rarer term outranks a common one',
      run(async (s) => {
        await s.upsert([
          doc('one', 'scanner walks files here'),
          doc('two', 'scanner walks the gitignore files here'),
          doc('common1', 'common words only'),
          doc('common2', 'common words only'),
          doc('common3', 'common words only'),
          doc('rare', 'zephyr words only'),
          ...filler(10),
        ]);
        const a = await s.search({ terms: terms('scanner gitignore'), limit: 10 });
        assert.deepEqual(
          a.map((h) => h.id),
          ['two', 'one'],
        );
        const b = await s.search({ terms: terms('common zephyr'), limit: 10 });
        assert.equal(b[0]!.id, 'rare');
        assert.equal(b.length, 4);
        for (let i = 1; i < b.length; i++)
          assert.ok(b[i - 1]!.score >= b[i]!.score, 'sorted by score');
      }),
    );

    test(
      'a match in the code outranks the same match only in the context',
      run(async (s) => {
        await s.upsert([
          doc('code', 'retry backoff', { context: 'network helper' }),
          doc('ctx', 'network helper', { context: 'retry backoff' }),
          ...filler(10),
        ]);
        const hits = await s.search({ terms: terms('backoff'), limit: 10 });
        assert.deepEqual(
          hits.map((h) => h.id),
          ['code', 'ctx'],
        );
      }),
    );

    test(
      'boosts change the order',
      run(async (s) => {
        await s.upsert([
          doc('x', 'lorem alpha ipsum'),
          doc('y', 'lorem bravo ipsum'),
          ...filler(10),
        ]);
        const order = async (ba: number, bb: number) =>
          (
            await s.search({
              terms: [
                { term: 'alpha', boost: ba },
                { term: 'bravo', boost: bb },
              ],
              limit: 10,
            })
          ).map((h) => h.id);
        assert.deepEqual(await order(1, 3), ['y', 'x']);
        assert.deepEqual(await order(3, 1), ['x', 'y']);
        const [hx, hy] = await s.search({
          terms: [
            { term: 'alpha', boost: 2 },
            { term: 'bravo', boost: 1 },
          ],
          limit: 10,
        });
        assert.equal(hx!.id, 'x');
        assert.ok(
          Math.abs(hx!.score - 2 * hy!.score) < 1e-9 * hx!.score,
          'boost multiplies the score',
        );
      }),
    );

    test(
      'empty queries, no hits and limits',
      run(async (s) => {
        assert.deepEqual(await s.search({ terms: terms('anything'), limit: 10 }), []);
        await s.upsert([
          doc('a', 'token one'),
          doc('b', 'token two'),
          doc('c', 'token three'),
          ...filler(10),
        ]);
        assert.deepEqual(await s.search({ terms: [], limit: 10 }), []);
        assert.deepEqual(await s.search({ terms: terms('absentterm'), limit: 10 }), []);
        assert.deepEqual(await s.search({ terms: terms('token'), limit: 0 }), []);
        assert.equal((await s.search({ terms: terms('token'), limit: 2 })).length, 2);
      }),
    );

    test(
      'query syntax in terms is never interpreted',
      run(async (s) => {
        await s.upsert([doc('a', 'near or and not token'), ...filler(5)]);
        const nasty = [
          '"',
          '""',
          'token"',
          'NEAR(token',
          'code:token',
          'token*',
          '^token',
          '(',
          ')',
          'AND',
          'OR',
          'NOT',
          '-',
          '\0',
          "'; DROP TABLE chunks; --",
          '',
        ];
        for (const term of nasty) await s.search({ terms: [{ term }], limit: 5 });
        const hits = await s.search({
          terms: nasty.map((term) => ({ term })).concat(terms('token')),
          limit: 5,
        });
        assert.equal(hits[0]?.id, 'a');
      }),
    );

    test(
      'a 20 KB query works',
      run(async (s) => {
        await s.upsert([doc('a', 'needle in a haystack'), ...filler(20)]);
        let big = '';
        // Words unlike anything indexed (digits would match the fillers' `value0`...).
        const word = (i: number) =>
          `q${i.toString(36).replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]!)}`;
        for (let i = 0; big.length < 20_000; i++)
          big += `${word(i)} camel${word(i)}Name snake_${word(i)}_x `;
        big += ' needle';
        // Every unique term of the text, not the analyzer's query cap: the store must bound the work.
        const all = analyzeQuery(big, Number.POSITIVE_INFINITY).map((term) => ({ term }));
        assert.ok(all.length > 1000);
        const hits = await s.search({ terms: all, limit: 5 });
        assert.ok(hits.some((h) => h.id === 'a'));
      }),
    );
  });
}

function unit(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function vrec(id: string, vector: Float32Array, over: Partial<VectorRecord> = {}): VectorRecord {
  return { id, path: `src/${id}.ts`, language: 'typescript', vector, ...over };
}

export function runVectorIndexContract(name: string, factory: VectorContractFactory): void {
  const dims = 4;
  const run = (fn: (s: VectorIndex) => Promise<void>) => () =>
    withStore(() => factory({ dimensions: dims }), fn);

  describe(`VectorIndex contract: ${name}`, () => {
    test(
      'nearest vector first, score is cosine similarity',
      run(async (s) => {
        await s.upsert([
          vrec('x', unit([1, 0, 0, 0])),
          vrec('y', unit([0, 1, 0, 0])),
          vrec('xy', unit([1, 1, 0, 0])),
          vrec('neg', unit([-1, 0, 0, 0])),
        ]);
        const hits = await s.search({ vector: unit([1, 0.2, 0, 0]), limit: 10 });
        assert.deepEqual(
          hits.map((h) => h.id),
          ['x', 'xy', 'y', 'neg'],
        );
        const exact = await s.search({ vector: unit([0, 1, 0, 0]), limit: 1 });
        assert.equal(exact[0]!.id, 'y');
        assert.ok(Math.abs(exact[0]!.score - 1) < 1e-5);
        assert.equal(exact[0]!.path, 'src/y.ts');
        assert.ok(Math.abs(hits[3]!.score - -unit([1, 0.2, 0, 0])[0]!) < 1e-5);
        // Scale does not matter to cosine.
        const scaled = await s.search({ vector: Float32Array.from([0, 5, 0, 0]), limit: 1 });
        assert.equal(scaled[0]!.id, 'y');
      }),
    );

    test(
      'upsert is idempotent by id',
      run(async (s) => {
        await s.upsert([vrec('a', unit([1, 0, 0, 0]))]);
        await s.upsert([vrec('a', unit([0, 0, 1, 0]))]);
        assert.equal(await s.count(), 1);
        const hits = await s.search({ vector: unit([0, 0, 1, 0]), limit: 5 });
        assert.equal(hits.length, 1);
        assert.ok(hits[0]!.score > 0.999);
      }),
    );

    test(
      'deleteByPaths removes only those paths; counts',
      run(async (s) => {
        await s.upsert([
          vrec('a1', unit([1, 0, 0, 0]), { path: 'src/a.ts' }),
          vrec('a2', unit([1, 1, 0, 0]), { path: 'src/a.ts' }),
          vrec('b', unit([0, 1, 0, 0]), { path: 'src/b.ts' }),
        ]);
        assert.equal(await s.count(), 3);
        await s.deleteByPaths(['src/a.ts', 'nope.ts']);
        assert.equal(await s.count(), 1);
        const hits = await s.search({ vector: unit([1, 0, 0, 0]), limit: 5 });
        assert.deepEqual(
          hits.map((h) => h.id),
          ['b'],
        );
      }),
    );

    test(
      'filters by language and path prefix, include and exclude, exactly',
      run(async (s) => {
        // Many near vectors outside the filter, a few far ones inside it: the filter must still
        // return the nearest of the allowed rows, not whatever survives a post-filter.
        const records: VectorRecord[] = [];
        for (let i = 0; i < 300; i++) {
          records.push(vrec(`near${i}`, unit([1, i / 3000, 0, 0]), { path: `src/near${i}.ts` }));
        }
        records.push(
          vrec('docfar', unit([0, 1, 0.1, 0]), { path: 'docs/far.md', language: 'markdown' }),
        );
        records.push(
          vrec('docmid', unit([1, 1, 0, 0]), { path: 'docs/mid.md', language: 'markdown' }),
        );
        records.push(
          vrec('pyone', unit([0, 0, 1, 0]), { path: 'src/tool.py', language: 'python' }),
        );
        await s.upsert(records);
        const q = unit([1, 0, 0, 0]);
        const ids = async (filter: object, limit = 2) =>
          (await s.search({ vector: q, limit, filter })).map((h) => h.id);
        assert.deepEqual(await ids({ pathPrefixes: ['docs/'] }), ['docmid', 'docfar']);
        assert.deepEqual(await ids({ languages: ['markdown'] }), ['docmid', 'docfar']);
        assert.deepEqual(await ids({ languages: ['python', 'markdown'] }, 5), [
          'docmid',
          'docfar',
          'pyone',
        ]);
        assert.deepEqual(await ids({ excludePathPrefixes: ['src/near'] }, 5), [
          'docmid',
          'docfar',
          'pyone',
        ]);
        assert.deepEqual(await ids({ pathPrefixes: ['src/'], languages: ['python'] }), ['pyone']);
        assert.deepEqual(await ids({ pathPrefixes: ['nowhere/'] }), []);
        assert.deepEqual(await ids({ pathPrefixes: ['src/'] }), ['near0', 'near1']);
      }),
    );

    test(
      'empty index, limits and dimension checks',
      run(async (s) => {
        assert.deepEqual(await s.search({ vector: unit([1, 0, 0, 0]), limit: 5 }), []);
        await s.upsert([]);
        await s.upsert([vrec('a', unit([1, 0, 0, 0])), vrec('b', unit([0, 1, 0, 0]))]);
        assert.deepEqual(await s.search({ vector: unit([1, 0, 0, 0]), limit: 0 }), []);
        assert.equal((await s.search({ vector: unit([1, 0, 0, 0]), limit: 1 })).length, 1);
        await assert.rejects(
          s.upsert([vrec('bad', Float32Array.from([1, 2, 3]))]),
          (e: unknown) => e instanceof CodesiftError && e.code === 'INVALID_ARGUMENT',
        );
        assert.equal(await s.count(), 2);
      }),
    );
  });
}

function sym(name: string, over: Partial<SymbolInfo> = {}): SymbolInfo {
  const qualifiedName = over.qualifiedName ?? name;
  const path = over.path ?? 'src/a.ts';
  const startLine = over.startLine ?? 1;
  return {
    id: over.id ?? `${path}#${qualifiedName}@${startLine}`,
    name,
    qualifiedName,
    kind: 'function' as UnitKind,
    path,
    language: 'typescript',
    startLine,
    endLine: startLine + 5,
    parent: null,
    signature: `function ${name}()`,
    doc: '',
    ...over,
  };
}

export function runSymbolIndexContract(name: string, factory: ContractFactory<SymbolIndex>): void {
  const run = (fn: (s: SymbolIndex) => Promise<void>) => () => withStore(factory, fn);

  describe(`SymbolIndex contract: ${name}`, () => {
    test(
      'exact lookup by name or qualified name, case-insensitive, then prefix',
      run(async (s) => {
        const addEdge = sym('addEdge', {
          qualifiedName: 'Graph.addEdge',
          kind: 'method',
          parent: 'Graph',
          startLine: 10,
        });
        await s.upsert([
          sym('Graph', { kind: 'class', startLine: 1 }),
          addEdge,
          sym('addEdgeList', { path: 'src/b.ts' }),
          sym('add', { path: 'src/c.ts' }),
          sym('remove', { path: 'src/c.ts', startLine: 9 }),
        ]);
        assert.deepEqual(await s.lookup('graph.ADDEDGE'), [addEdge]);
        const byName = await s.lookup('addedge');
        assert.deepEqual(
          byName.map((x) => x.qualifiedName),
          ['Graph.addEdge', 'addEdgeList'],
        );
        const prefix = await s.lookup('ad');
        assert.deepEqual(
          prefix.map((x) => x.name),
          ['add', 'addEdge', 'addEdgeList'],
        );
        const exactFirst = await s.lookup('add');
        assert.deepEqual(
          exactFirst.map((x) => x.name),
          ['add', 'addEdge', 'addEdgeList'],
        );
        assert.deepEqual(
          (await s.lookup('graph')).map((x) => x.qualifiedName),
          ['Graph', 'Graph.addEdge'],
        );
        assert.deepEqual(
          (await s.lookup('add', { kind: 'method' })).map((x) => x.name),
          ['addEdge'],
        );
        assert.equal((await s.lookup('add', { limit: 1 })).length, 1);
        assert.deepEqual(await s.lookup('zzz'), []);
        assert.deepEqual(await s.lookup(''), []);
      }),
    );

    test(
      'exact lookup puts a declaration before impls, extensions and prototypes of its name',
      run(async (s) => {
        await s.upsert([
          sym('Parser', { id: 'i1', kind: 'impl', path: 'src/a/ext.rs', signature: 'impl Parser' }),
          sym('Parser', { id: 'i2', kind: 'impl', path: 'src/b/ext.rs', signature: 'impl Parser' }),
          sym('Parser', { id: 'd', kind: 'struct', path: 'src/z/parser.rs' }),
          sym('parse', {
            id: 'p',
            kind: 'function',
            path: 'include/a.h',
            signature: 'int parse(void);',
          }),
          sym('parse', {
            id: 'b',
            kind: 'function',
            path: 'src/parse.c',
            signature: 'int parse(void)',
          }),
        ]);
        assert.deepEqual(
          (await s.lookup('parser', { limit: 1 })).map((x) => x.id),
          ['d'],
        );
        assert.deepEqual(
          (await s.lookup('Parser')).map((x) => x.id),
          ['d', 'i1', 'i2'],
        );
        assert.deepEqual(
          (await s.lookup('parse', { limit: 1 })).map((x) => x.id),
          ['b'],
        );
      }),
    );

    test(
      'upsert is idempotent by id; deleteByPaths; count',
      run(async (s) => {
        await s.upsert([sym('one', { id: 's1' }), sym('two', { id: 's2', path: 'src/b.ts' })]);
        await s.upsert([sym('uno', { id: 's1' })]);
        assert.equal(await s.count(), 2);
        assert.deepEqual(await s.lookup('one'), []);
        assert.equal((await s.lookup('uno'))[0]?.id, 's1');
        await s.deleteByPaths(['src/b.ts']);
        assert.equal(await s.count(), 1);
        assert.deepEqual(await s.lookup('two'), []);
      }),
    );

    test(
      'vocabulary counts names, most frequent first, with prefix and limit',
      run(async (s) => {
        await s.upsert([
          sym('render', { path: 'a.ts' }),
          sym('render', { path: 'b.ts' }),
          sym('render', { path: 'c.ts' }),
          sym('resolve', { path: 'a.ts', startLine: 20 }),
          sym('resolve', { path: 'b.ts', startLine: 20 }),
          sym('parse', { path: 'a.ts', startLine: 40 }),
        ]);
        assert.deepEqual(await s.vocabulary(), [
          { name: 'render', count: 3 },
          { name: 'resolve', count: 2 },
          { name: 'parse', count: 1 },
        ]);
        assert.deepEqual(await s.vocabulary({ prefix: 'RE', limit: 1 }), [
          { name: 'render', count: 3 },
        ]);
        assert.deepEqual(await s.vocabulary({ prefix: 'x' }), []);
      }),
    );
  });
}

function rec(path: string, over: Partial<FileRecord> = {}): FileRecord {
  return {
    path,
    hash: 'h'.repeat(64),
    size: 10,
    mtimeMs: 1_700_000_000_000.5,
    language: 'typescript',
    chunkCount: 2,
    symbolCount: 1,
    indexedAt: 1_700_000_000_123,
    ...over,
  };
}

export function runManifestContract(name: string, factory: ContractFactory<Manifest>): void {
  const run = (fn: (s: Manifest) => Promise<void>) => () => withStore(factory, fn);

  describe(`Manifest contract: ${name}`, () => {
    test(
      'put, get, all, overwrite, remove',
      run(async (m) => {
        assert.equal(await m.get('a.ts'), undefined);
        assert.equal((await m.all()).size, 0);
        await m.put([rec('a.ts'), rec('b/c.py', { language: 'python' })]);
        assert.deepEqual(await m.get('a.ts'), rec('a.ts'));
        await m.put([rec('a.ts', { hash: 'x'.repeat(64), chunkCount: 5 })]);
        assert.equal((await m.get('a.ts'))?.chunkCount, 5);
        const all = await m.all();
        assert.deepEqual([...all.keys()].sort(), ['a.ts', 'b/c.py']);
        assert.deepEqual(all.get('b/c.py'), rec('b/c.py', { language: 'python' }));
        await m.remove(['a.ts', 'missing.ts']);
        assert.equal(await m.get('a.ts'), undefined);
        assert.equal((await m.all()).size, 1);
      }),
    );
    test(
      'all(prefix) lists the records under a prefix only',
      run(async (m) => {
        const paths = [
          'acme/api/a.ts',
          'acme/api/src/b.ts',
          'acme/api-v2/a.ts',
          'acme/apiz',
          'web/a.ts',
          'acme/api',
        ];
        await m.put(paths.map((p) => rec(p)));
        assert.deepEqual([...(await m.all('acme/api/')).keys()].sort(), [
          'acme/api/a.ts',
          'acme/api/src/b.ts',
        ]);
        assert.deepEqual([...(await m.all('web/')).keys()], ['web/a.ts']);
        assert.equal((await m.all('none/')).size, 0);
        assert.equal((await m.all('')).size, paths.length);
        assert.equal((await m.all()).size, paths.length);
      }),
    );
  });
}
