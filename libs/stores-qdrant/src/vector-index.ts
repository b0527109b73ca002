import { CodesiftError } from '@codesift/core';
import type { VectorHit, VectorIndex, VectorQuery, VectorRecord } from '@codesift/stores';
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { type CollectionSpec, ensureCollection } from './collection.js';
import { toCodesiftError } from './errors.js';
import { PAYLOAD, pathPrefixes, pathsFilter, toQdrantFilter } from './filters.js';
import { pointId } from './ids.js';

export const DEFAULT_QDRANT_URL = 'http://localhost:6333';

/** Files per stale-point delete request (one nested filter each). */
const STALE_BATCH_FILES = 64;

/** One file's chunks to keep; every other point of `path` is stale. */
export interface StalePoints {
  path: string;
  keep: readonly string[];
}

/** Where a collection lives, for the helpers that need no open index. */
export interface QdrantConnection {
  collection: string;
  /** Default `QDRANT_URL`, else http://localhost:6333. */
  url?: string;
  /** Default `QDRANT_API_KEY`. */
  apiKey?: string;
  timeoutMs?: number;
}

function connect(opts: Omit<QdrantConnection, 'collection'>): {
  client: QdrantClient;
  url: string;
} {
  const url = opts.url ?? process.env.QDRANT_URL ?? DEFAULT_QDRANT_URL;
  const apiKey = opts.apiKey ?? process.env.QDRANT_API_KEY;
  const client = new QdrantClient({
    url,
    ...(apiKey ? { apiKey } : {}),
    timeout: opts.timeoutMs ?? 30_000,
    // Its check only logs a warning, and would warn for every server it cannot reach.
    checkCompatibility: false,
  });
  return { client, url };
}

/**
 * The points of some files that are not among the ids each keeps: each file
 * is a nested filter (its path, minus `has_id` of the points it keeps).
 */
export function staleFilter(files: readonly StalePoints[]): Schemas['Filter'] {
  return {
    should: files.map((f): Schemas['Filter'] => {
      const clause: Schemas['Filter'] = { must: [{ key: PAYLOAD.path, match: { value: f.path } }] };
      const keep = [...new Set(f.keep)];
      if (keep.length > 0) clause.must_not = [{ has_id: keep.map(pointId) }];
      return clause;
    }),
  };
}

export interface QdrantVectorIndexOptions extends CollectionSpec {
  /** REST address; default `QDRANT_URL`, else http://localhost:6333. */
  url?: string;
  /** Default `QDRANT_API_KEY`. */
  apiKey?: string;
  /** Points per upsert request (default 256), paths per delete request (4x that). */
  batchSize?: number;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
}

/**
 * VectorIndex on a Qdrant collection (cluster mode). Every write waits for the
 * server to apply it (`wait=true`), so it is visible to reads when the promise
 * resolves, as the port requires.
 */
export class QdrantVectorIndex implements VectorIndex {
  readonly url: string;
  readonly collection: string;
  readonly dimensions: number;
  private readonly client: QdrantClient;
  private readonly batchSize: number;

  private constructor(opts: QdrantVectorIndexOptions) {
    const { client, url } = connect(opts);
    this.url = url;
    this.client = client;
    this.collection = opts.collection;
    this.dimensions = opts.dimensions;
    this.batchSize = Math.max(1, opts.batchSize ?? 256);
  }

  /**
   * What the collection holds, without opening it: null when it does not
   * exist, else its vector size (null for named vectors) and point count.
   */
  static async inspect(
    opts: QdrantConnection,
  ): Promise<{ dimensions: number | null; points: number } | null> {
    const { client, url } = connect(opts);
    try {
      const { exists } = await client.collectionExists(opts.collection);
      if (!exists) return null;
      const info = await client.getCollection(opts.collection);
      const v = info.config.params.vectors as { size?: unknown } | undefined;
      const { count } = await client.count(opts.collection, { exact: true });
      return { dimensions: typeof v?.size === 'number' ? v.size : null, points: count };
    } catch (err) {
      throw toCodesiftError(err, `Qdrant inspect (collection "${opts.collection}")`, url);
    }
  }

  /** Deletes a collection (a missing one is fine) without opening it. */
  static async drop(opts: QdrantConnection): Promise<void> {
    const { client, url } = connect(opts);
    try {
      await client.deleteCollection(opts.collection);
    } catch (err) {
      throw toCodesiftError(err, `Qdrant delete collection (collection "${opts.collection}")`, url);
    }
  }

  /** Connects, creating the collection and its payload indexes when missing. */
  static async open(opts: QdrantVectorIndexOptions): Promise<QdrantVectorIndex> {
    if (!Number.isInteger(opts.dimensions) || opts.dimensions < 1)
      throw new CodesiftError('INVALID_ARGUMENT', `bad vector dimensions: ${opts.dimensions}`);
    const index = new QdrantVectorIndex(opts);
    await index.call('opening the collection', () => ensureCollection(index.client, opts));
    return index;
  }

  private async call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toCodesiftError(err, `Qdrant ${action} (collection "${this.collection}")`, this.url);
    }
  }

  private checkVector(v: Float32Array, what: string): void {
    if (v.length !== this.dimensions)
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `${what} has ${v.length} dimensions, the collection expects ${this.dimensions}`,
      );
    // JSON has no NaN or Infinity: they would be sent as null and rejected.
    if (!v.every(Number.isFinite))
      throw new CodesiftError('INVALID_ARGUMENT', `${what} has a NaN or infinite component`);
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    for (const r of records) this.checkVector(r.vector, `vector of chunk ${r.id}`);
    // One point per id, the last record winning, as if they were written one by one.
    const byId = new Map<string, VectorRecord>();
    for (const r of records) {
      byId.delete(r.id);
      byId.set(r.id, r);
    }
    const points: Schemas['PointStruct'][] = [...byId.values()].map((r) => ({
      id: pointId(r.id),
      vector: Array.from(r.vector),
      payload: {
        [PAYLOAD.chunkId]: r.id,
        [PAYLOAD.path]: r.path,
        [PAYLOAD.language]: r.language,
        [PAYLOAD.pathPrefixes]: pathPrefixes(r.path),
      },
    }));
    for (let i = 0; i < points.length; i += this.batchSize) {
      const batch = points.slice(i, i + this.batchSize);
      await this.call('upsert', () =>
        this.client.upsert(this.collection, { wait: true, points: batch }),
      );
    }
  }

  async deleteByPaths(paths: string[]): Promise<void> {
    const unique = [...new Set(paths)];
    // Paths are short, so a delete carries more of them than an upsert carries points.
    const step = this.batchSize * 4;
    for (let i = 0; i < unique.length; i += step) {
      const filter = pathsFilter(unique.slice(i, i + step));
      await this.call('delete by path', () =>
        this.client.delete(this.collection, { wait: true, filter }),
      );
    }
  }

  /**
   * Deletes the points of these files that are not in their `keep` lists
   * (chunk ids): what a re-indexed file no longer has. Point ids derive from
   * chunk ids, so the kept points were replaced in place by the upsert.
   */
  async deleteStale(files: readonly StalePoints[]): Promise<void> {
    for (let i = 0; i < files.length; i += STALE_BATCH_FILES) {
      const filter = staleFilter(files.slice(i, i + STALE_BATCH_FILES));
      await this.call('delete stale points', () =>
        this.client.delete(this.collection, { wait: true, filter }),
      );
    }
  }

  async search(q: VectorQuery): Promise<VectorHit[]> {
    this.checkVector(q.vector, 'query vector');
    const limit = Math.floor(q.limit);
    // Qdrant's limit is at least 1; no request is needed to find nothing.
    if (!(limit > 0)) return [];
    const filter = toQdrantFilter(q.filter);
    if (filter === null) return [];
    const res = await this.call('search', () =>
      this.client.query(this.collection, {
        query: Array.from(q.vector),
        limit,
        ...(filter ? { filter } : {}),
        with_payload: [PAYLOAD.chunkId, PAYLOAD.path],
      }),
    );
    return res.points.map((p) => {
      const payload = p.payload ?? {};
      return {
        id: String(payload[PAYLOAD.chunkId]),
        path: String(payload[PAYLOAD.path]),
        score: p.score,
      };
    });
  }

  async count(): Promise<number> {
    const res = await this.call('count', () => this.client.count(this.collection, { exact: true }));
    return res.count;
  }

  /** Deletes the whole collection (tests, `--rebuild`). */
  async dropCollection(): Promise<void> {
    await this.call('delete collection', () => this.client.deleteCollection(this.collection));
  }
}
