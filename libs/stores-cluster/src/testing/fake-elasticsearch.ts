/**
 * A small in-memory Elasticsearch behind @elastic/elasticsearch-mock, for
 * testing the cluster stores together: it keeps indices and docs, and runs
 * the requests the codesift adapters send (index create/exists/mapping,
 * bulk, mget, create/index with optimistic concurrency, delete_by_query,
 * count, search, stats) with the query clauses they use (bool, term, terms,
 * prefix, ids). A request or clause it does not know fails the test.
 *
 * A `term` on a text field scores BM25 as one Lucene shard does (k1 1.2,
 * b 0.75, idf and average length over the index's docs holding the field),
 * times the boosts; bool sums its clauses. Lucene's lossy one-byte length
 * encoding is not reproduced, so scores are close to a real server's, not
 * equal: a test comparing near-ties must not rely on them. Every request
 * is checked against the published specification first (mockedClient).
 */

import { mockedClient, responseError } from '@codesift/stores-elasticsearch/testing';
import type { Client } from '@elastic/elasticsearch';
import type { MockPattern } from '@elastic/elasticsearch-mock';

type Source = Record<string, unknown>;
interface StoredDoc {
  source: Source;
  seqNo: number;
}
interface FakeIndex {
  body: { mappings?: Record<string, unknown> };
  docs: Map<string, StoredDoc>;
}
type Query = Record<string, unknown>;

export interface FakeElasticsearch {
  client: Client;
  indices: Map<string, FakeIndex>;
  /** Every request, as `METHOD /path`, in order. */
  log: string[];
  /** Make requests fail: return an Error (e.g. responseError) to answer with it. */
  fault: ((method: string, path: string) => Error | undefined) | undefined;
  /** The `_source` of every doc in an index, by id. */
  docs(index: string): Map<string, Source>;
}

const list = <T>(x: T | T[] | undefined): T[] =>
  x === undefined ? [] : Array.isArray(x) ? x : [x];

function field(doc: Source, name: string): unknown {
  let v: unknown = doc;
  for (const part of name.split('.')) v = (v as Record<string, unknown> | undefined)?.[part];
  return v;
}

const BM25_K1 = 1.2;
const BM25_B = 0.75;

function tokens(doc: Source, name: string): string[] {
  return String(field(doc, name) ?? '')
    .split(' ')
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** Lucene's BM25 over one index's docs; per-field statistics are gathered on first use. */
class Bm25 {
  private readonly fields = new Map<
    string,
    { docs: number; length: number; df: Map<string, number> }
  >();

  constructor(private readonly docs: () => Iterable<Source>) {}

  private stats(name: string) {
    let f = this.fields.get(name);
    if (!f) {
      f = { docs: 0, length: 0, df: new Map() };
      for (const doc of this.docs()) {
        const t = tokens(doc, name);
        if (t.length === 0) continue;
        f.docs++;
        f.length += t.length;
        for (const w of new Set(t)) f.df.set(w, (f.df.get(w) ?? 0) + 1);
      }
      this.fields.set(name, f);
    }
    return f;
  }

  /** null when the doc's field lacks the term. */
  score(name: string, term: string, doc: Source): number | null {
    const t = tokens(doc, name);
    const tf = t.filter((w) => w === term).length;
    if (tf === 0) return null;
    const f = this.stats(name);
    const n = f.df.get(term) ?? 0;
    const idf = Math.log(1 + (f.docs - n + 0.5) / (n + 0.5));
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * t.length) / (f.length / f.docs));
    return (idf * tf) / (tf + norm);
  }
}

/** The score of `doc` for `q`, or null when it does not match. */
function score(q: Query, id: string, doc: Source, bm25: Bm25): number | null {
  const [kind, spec] = Object.entries(q)[0] ?? [];
  const s = spec as Record<string, unknown>;
  switch (kind) {
    case 'match_all':
      return 1;
    case 'bool': {
      for (const f of list(s.filter as Query | Query[]))
        if (score(f, id, doc, bm25) === null) return null;
      for (const f of list(s.must_not as Query | Query[]))
        if (score(f, id, doc, bm25) !== null) return null;
      let total = 0;
      for (const f of list(s.must as Query | Query[])) {
        const v = score(f, id, doc, bm25);
        if (v === null) return null;
        total += v;
      }
      const should = list(s.should as Query | Query[]);
      let matched = 0;
      for (const f of should) {
        const v = score(f, id, doc, bm25);
        if (v !== null) {
          matched++;
          total += v;
        }
      }
      const implicit = should.length > 0 && s.filter === undefined && s.must === undefined ? 1 : 0;
      if (matched < ((s.minimum_should_match as number | undefined) ?? implicit)) return null;
      return total * ((s.boost as number | undefined) ?? 1);
    }
    case 'term': {
      const [name, t] = Object.entries(s)[0]!;
      const value = typeof t === 'object' && t !== null ? (t as { value: unknown }).value : t;
      const boost = (typeof t === 'object' && t !== null && (t as { boost?: number }).boost) || 1;
      const v = field(doc, name);
      if (name.startsWith('terms.')) {
        const s = bm25.score(name, String(value), doc);
        return s === null ? null : s * boost;
      }
      return v === value ? boost : null;
    }
    case 'terms': {
      const [name, values] = Object.entries(s)[0]!;
      return (values as unknown[]).includes(field(doc, name)) ? 1 : null;
    }
    case 'prefix': {
      const [name, p] = Object.entries(s)[0]!;
      const value = typeof p === 'object' && p !== null ? (p as { value: string }).value : p;
      return String(field(doc, name) ?? '').startsWith(String(value)) ? 1 : null;
    }
    case 'ids':
      return (s.values as string[]).includes(id) ? 1 : null;
    default:
      throw new Error(`fake Elasticsearch does not implement query ${JSON.stringify(q)}`);
  }
}

function pick(doc: Source, fields: readonly string[] | undefined): Source {
  if (!fields) return doc;
  return Object.fromEntries(fields.filter((f) => f in doc).map((f) => [f, doc[f]]));
}

function sourceFields(p: MockPattern, body?: { _source?: unknown }): string[] | undefined {
  const q = p.querystring?._source;
  if (typeof q === 'string') return q.split(',');
  const source = body?._source;
  if (Array.isArray(source)) return source as string[];
  const includes = (source as { includes?: unknown } | undefined)?.includes;
  return Array.isArray(includes) ? (includes as string[]) : undefined;
}

export function startFakeElasticsearch(): FakeElasticsearch {
  const { client, on } = mockedClient();
  const indices = new Map<string, FakeIndex>();
  const log: string[] = [];
  let seq = 0;
  const fake: FakeElasticsearch = {
    client,
    indices,
    log,
    fault: undefined,
    docs: (name) => new Map([...(indices.get(name)?.docs ?? [])].map(([id, d]) => [id, d.source])),
  };
  const notFound = (name: string) =>
    responseError(404, 'index_not_found_exception', `no such index [${name}]`);
  const route = (method: string, path: string, fn: (p: MockPattern, parts: string[]) => unknown) =>
    on(method, path, (p: MockPattern) => {
      const url = String(p.path);
      log.push(`${p.method} ${url}`);
      const fault = fake.fault?.(String(p.method), url);
      if (fault) return fault;
      return fn(p, url.split('/').slice(1).map(decodeURIComponent));
    });
  const index = (name: string): FakeIndex | undefined => indices.get(name);
  const put = (ix: FakeIndex, id: string, source: Source) =>
    ix.docs.set(id, { source: structuredClone(source), seqNo: seq++ });

  route('HEAD', '/:index', (_p, [name]) => (indices.has(name!) ? '' : notFound(name!)));
  route('PUT', '/:index', (p, [name]) => {
    if (indices.has(name!)) {
      return responseError(400, 'resource_already_exists_exception', `index [${name}] exists`);
    }
    indices.set(name!, { body: p.body as FakeIndex['body'], docs: new Map() });
    return { acknowledged: true, index: name };
  });
  route('DELETE', '/:index', (_p, [name]) => {
    indices.delete(name!);
    return { acknowledged: true };
  });
  route('GET', '/:index/_mapping', (_p, [name]) => {
    const ix = index(name!);
    return ix ? { [name!]: { mappings: ix.body.mappings ?? {} } } : notFound(name!);
  });
  route('PUT', '/:index/_create/:id', (p, [name, , id]) => {
    const ix = index(name!);
    if (!ix) return notFound(name!);
    if (ix.docs.has(id!)) {
      return responseError(409, 'version_conflict_engine_exception', 'document already exists');
    }
    put(ix, id!, p.body as Source);
    return { result: 'created', _id: id };
  });
  route('PUT', '/:index/_doc/:id', (p, [name, , id]) => {
    const ix = index(name!);
    if (!ix) return notFound(name!);
    const want = p.querystring?.if_seq_no;
    if (want !== undefined && String(ix.docs.get(id!)?.seqNo) !== String(want)) {
      return responseError(409, 'version_conflict_engine_exception', 'seq_no mismatch');
    }
    put(ix, id!, p.body as Source);
    return { result: 'updated', _id: id };
  });
  route('POST', '/:index/_mget', (p, [name]) => {
    const ix = index(name!);
    const ids = (p.body as { ids: string[] }).ids;
    return {
      docs: ids.map((id) => {
        if (!ix) return { _id: id, error: { type: 'index_not_found_exception', reason: name } };
        const d = ix.docs.get(id);
        if (!d) return { _index: name, _id: id, found: false };
        return {
          _index: name,
          _id: id,
          found: true,
          _seq_no: d.seqNo,
          _primary_term: 1,
          _source: pick(d.source, sourceFields(p)),
        };
      }),
    };
  });
  route('POST', '/:index/_bulk', (p, [name]) => {
    const ix = index(name!);
    if (!ix) return notFound(name!);
    const lines = p.body as Source[];
    const items: unknown[] = [];
    for (let i = 0; i < lines.length; i++) {
      const action = lines[i]!;
      if ('index' in action) {
        const id = (action.index as { _id: string })._id;
        put(ix, id, lines[++i]!);
        items.push({ index: { _id: id, status: 200, result: 'updated' } });
      } else if ('delete' in action) {
        const id = (action.delete as { _id: string })._id;
        const had = ix.docs.delete(id);
        items.push({
          delete: { _id: id, status: had ? 200 : 404, result: had ? 'deleted' : 'not_found' },
        });
      } else {
        throw new Error(`fake Elasticsearch does not implement bulk ${JSON.stringify(action)}`);
      }
    }
    return { errors: false, took: 1, items };
  });
  route('POST', '/:index/_delete_by_query', (p, [name]) => {
    const ix = index(name!);
    if (!ix) return notFound(name!);
    const q = (p.body as { query: Query }).query;
    let deleted = 0;
    const bm25 = new Bm25(() => [...ix.docs.values()].map((d) => d.source));
    for (const [id, d] of [...ix.docs]) {
      if (score(q, id, d.source, bm25) !== null) {
        ix.docs.delete(id);
        deleted++;
      }
    }
    return { deleted, failures: [] };
  });
  const count = (_p: MockPattern, [name]: string[]) => {
    const ix = index(name!);
    return ix ? { count: ix.docs.size } : notFound(name!);
  };
  route('GET', '/:index/_count', count);
  route('POST', '/:index/_count', count);
  route('POST', '/:index/_search', (p, [name]) => {
    const ix = index(name!);
    if (!ix) return notFound(name!);
    const body = p.body as {
      query?: Query;
      size?: number;
      sort?: Record<string, 'asc' | 'desc'>[];
      search_after?: unknown[];
      _source?: unknown;
    };
    const fields = sourceFields(p, body);
    const bm25 = new Bm25(() => [...ix.docs.values()].map((d) => d.source));
    let hits = [...ix.docs].flatMap(([id, d]) => {
      const s = score(body.query ?? { match_all: {} }, id, d.source, bm25);
      return s === null ? [] : [{ id, source: d.source, score: s }];
    });
    const sortField = body.sort ? Object.keys(body.sort[0]!)[0]! : undefined;
    if (sortField) {
      hits.sort((a, b) => String(a.source[sortField]).localeCompare(String(b.source[sortField])));
      const after = body.search_after?.[0];
      if (after !== undefined)
        hits = hits.filter((h) => String(h.source[sortField]) > String(after));
    } else {
      hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    }
    return {
      hits: {
        hits: hits.slice(0, body.size ?? 10).map((h) => ({
          _index: name,
          _id: h.id,
          _score: sortField ? null : h.score,
          _source: pick(h.source, fields),
          ...(sortField ? { sort: [h.source[sortField]] } : {}),
        })),
      },
    };
  });
  route('GET', '/:index/_stats/store', (_p, [names]) => {
    let bytes = 0;
    for (const n of names!.split(',')) {
      for (const d of indices.get(n)?.docs.values() ?? []) bytes += JSON.stringify(d.source).length;
    }
    return { _all: { primaries: { store: { size_in_bytes: bytes } } } };
  });
  return fake;
}
