/**
 * The Manifest port on Elasticsearch: one doc per indexed file in its own
 * index (e.g. `codesift-manifest`), its FileRecord as `_source`. The doc id
 * is a SHA-256 of the path: ES ids are limited to 512 bytes, paths are not,
 * and anyone can compute the id of a path. Reads by path use `mget` (real
 * time); listing uses a sorted search, so writes refresh (`wait_for` by
 * default) to be listed once they resolve, as the ports require.
 */
import { createHash } from 'node:crypto';
import type { FileRecord } from '@codesift/core';
import type { Manifest } from '@codesift/stores';
import type { Client, estypes } from '@elastic/elasticsearch';
import { checkBulkResponse } from './bulk.js';
import { call } from './errors.js';
import { ensureIndexWith, mgetItemError } from './indices.js';
import type { RefreshPolicy } from './keyword-index.js';
import { type KeywordIndexSettingsOptions, manifestIndexBody } from './template.js';

/** Records per bulk request and per page of `all()`. */
const PAGE = 1_000;

/** A FileRecord as stored (snake_case like the chunk docs). */
export interface ManifestSource {
  path: string;
  hash: string;
  size: number;
  mtime_ms: number;
  language: string;
  chunk_count: number;
  symbol_count: number;
  indexed_at: number;
}

/** The manifest doc id of a path. */
export function manifestDocId(path: string): string {
  return createHash('sha256').update(path, 'utf8').digest('hex');
}

export function toManifestSource(r: FileRecord): ManifestSource {
  return {
    path: r.path,
    hash: r.hash,
    size: r.size,
    mtime_ms: r.mtimeMs,
    language: r.language,
    chunk_count: r.chunkCount,
    symbol_count: r.symbolCount,
    indexed_at: r.indexedAt,
  };
}

function fromSource(s: ManifestSource): FileRecord {
  return {
    path: s.path,
    hash: s.hash,
    size: s.size,
    mtimeMs: s.mtime_ms,
    language: s.language,
    chunkCount: s.chunk_count,
    symbolCount: s.symbol_count,
    indexedAt: s.indexed_at,
  };
}

export interface ElasticsearchManifestOptions extends KeywordIndexSettingsOptions {
  /** A configured client; the caller owns it. */
  client: Client;
  /** Index name, e.g. `codesift-manifest`. */
  index: string;
  /** Default 'wait_for'. */
  refresh?: RefreshPolicy;
}

export class ElasticsearchManifest implements Manifest {
  readonly client: Client;
  readonly index: string;
  private readonly refreshPolicy: RefreshPolicy;
  private readonly settings: KeywordIndexSettingsOptions;

  constructor(opts: ElasticsearchManifestOptions) {
    this.client = opts.client;
    this.index = opts.index;
    this.refreshPolicy = opts.refresh ?? 'wait_for';
    this.settings = {};
    if (opts.shards !== undefined) this.settings.shards = opts.shards;
    if (opts.replicas !== undefined) this.settings.replicas = opts.replicas;
  }

  /** Creates the index unless it exists (and checks an existing one); true when created. */
  ensureIndex(): Promise<boolean> {
    return ensureIndexWith(this.client, this.index, manifestIndexBody(this.settings));
  }

  /** Deletes the whole index; a missing one is fine. */
  async drop(): Promise<void> {
    await call('delete index', this.index, () =>
      this.client.indices.delete({ index: this.index, ignore_unavailable: true }),
    );
  }

  async get(path: string): Promise<FileRecord | undefined> {
    const id = manifestDocId(path);
    const res = await call('mget', this.index, () =>
      this.client.mget<ManifestSource>({ index: this.index, ids: [id] }),
    );
    const d = res.docs[0];
    if (!d) return undefined;
    if ('error' in d) throw mgetItemError(this.index, d._id, d.error);
    // A hash collision is not a concern for SHA-256, but a doc must be the path asked.
    return d.found && d._source?.path === path ? fromSource(d._source) : undefined;
  }

  async all(prefix = ''): Promise<Map<string, FileRecord>> {
    const out = new Map<string, FileRecord>();
    let after: estypes.SortResults | undefined;
    for (;;) {
      const res = await call('search', this.index, () =>
        this.client.search<ManifestSource>({
          index: this.index,
          size: PAGE,
          sort: [{ path: 'asc' }],
          track_total_hits: false,
          ...(prefix === '' ? {} : { query: { prefix: { path: { value: prefix } } } }),
          ...(after ? { search_after: after } : {}),
        }),
      );
      const hits = res.hits.hits;
      for (const h of hits) if (h._source) out.set(h._source.path, fromSource(h._source));
      if (hits.length < PAGE) return out;
      after = hits[hits.length - 1]!.sort;
      if (!after) return out;
    }
  }

  /** Whether any path starts with `prefix` (one hit asked for, not the whole listing). */
  async hasUnder(prefix: string): Promise<boolean> {
    const res = await call('search', this.index, () =>
      this.client.search<ManifestSource>({
        index: this.index,
        size: 1,
        _source: false,
        track_total_hits: false,
        query: { prefix: { path: { value: prefix } } },
      }),
    );
    return res.hits.hits.length > 0;
  }

  async put(records: FileRecord[]): Promise<void> {
    for (let i = 0; i < records.length; i += PAGE) {
      const batch = records.slice(i, i + PAGE);
      const res = await call('bulk', this.index, () =>
        this.client.bulk({
          index: this.index,
          operations: batch.flatMap((r) => [
            { index: { _id: manifestDocId(r.path) } },
            toManifestSource(r),
          ]),
          refresh: this.refreshPolicy,
        }),
      );
      checkBulkResponse(res, this.index);
    }
  }

  async remove(paths: string[]): Promise<void> {
    const unique = [...new Set(paths)];
    for (let i = 0; i < unique.length; i += PAGE) {
      const batch = unique.slice(i, i + PAGE);
      const res = await call('bulk', this.index, () =>
        this.client.bulk({
          index: this.index,
          // Deleting a missing doc answers `not_found`, not an error: removal is idempotent.
          operations: batch.map((p) => ({ delete: { _id: manifestDocId(p) } })),
          refresh: this.refreshPolicy,
        }),
      );
      checkBulkResponse(res, this.index);
    }
  }

  /** How many files the manifest holds. */
  async count(): Promise<number> {
    const res = await call('count', this.index, () => this.client.count({ index: this.index }));
    return res.count;
  }
}
