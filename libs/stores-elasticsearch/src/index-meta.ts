/**
 * What the SQLite index keeps in its `meta` table, for an Elasticsearch
 * store set: the embedder (name, dimensions), the indexed root, the schema
 * and analyzer versions, when it was created and last written. Two docs in
 * a small index (e.g. `codesift-meta`), read by id (`mget`, real time):
 * - `index`: set once and rarely changed (embedder, root, versions). Changes
 *   use optimistic concurrency (`if_seq_no` / `if_primary_term`), so two
 *   writers recording different embedders cannot both win.
 * - `updated`: the time of the last write, overwritten by every commit
 *   (last writer wins), kept apart so commits never conflict with the above.
 */
import { ANALYZER_VERSION } from '@codesift/analysis';
import { CodesiftError } from '@codesift/core';
import type { IndexMeta } from '@codesift/stores';
import type { Client } from '@elastic/elasticsearch';
import { call, responseErrorType, toCodesiftError } from './errors.js';
import { ensureIndexWith, mgetItemError } from './indices.js';
import { ES_SCHEMA_VERSION, type KeywordIndexSettingsOptions, metaIndexBody } from './template.js';

export const META_DOC_ID = 'index';
export const UPDATED_DOC_ID = 'updated';

export interface MetaSource {
  schema_version: number;
  analyzer_version: number;
  embedder: string | null;
  dimensions: number | null;
  root: string | null;
  created_at: number;
  /** Repository name -> directory, in an index of many; absent in one of one tree. */
  repositories?: Record<string, string>;
}

/** The meta doc with the version it was read at, for a conditional update. */
export interface VersionedMeta {
  meta: IndexMeta;
  seqNo: number;
  primaryTerm: number;
}

export interface ElasticsearchIndexMetaOptions extends KeywordIndexSettingsOptions {
  /** A configured client; the caller owns it. */
  client: Client;
  /** Index name, e.g. `codesift-meta`. */
  index: string;
  /** Clock (tests). */
  now?: () => number;
}

export class ElasticsearchIndexMeta {
  readonly client: Client;
  readonly index: string;
  private readonly now: () => number;
  private readonly settings: KeywordIndexSettingsOptions;

  constructor(opts: ElasticsearchIndexMetaOptions) {
    this.client = opts.client;
    this.index = opts.index;
    this.now = opts.now ?? Date.now;
    this.settings = {};
    if (opts.replicas !== undefined) this.settings.replicas = opts.replicas;
  }

  /**
   * Creates the index and the meta doc unless they exist. A meta doc from
   * another schema or analyzer version is INDEX_INCOMPATIBLE.
   */
  async ensure(): Promise<void> {
    await ensureIndexWith(this.client, this.index, metaIndexBody(this.settings));
    const doc: MetaSource = {
      schema_version: ES_SCHEMA_VERSION,
      analyzer_version: ANALYZER_VERSION,
      embedder: null,
      dimensions: null,
      root: null,
      created_at: this.now(),
    };
    try {
      await this.client.create({ index: this.index, id: META_DOC_ID, document: doc });
    } catch (err) {
      // Already there (another writer, or an earlier run): checked by read() below.
      if (responseErrorType(err) !== 'version_conflict_engine_exception') {
        throw toCodesiftError(err, 'create meta doc', this.index);
      }
    }
    await this.read();
  }

  /** The meta and the version of its doc. */
  async read(): Promise<VersionedMeta> {
    const res = await call('mget', this.index, () =>
      this.client.mget<MetaSource | { updated_at: number }>({
        index: this.index,
        ids: [META_DOC_ID, UPDATED_DOC_ID],
      }),
    );
    let meta: MetaSource | undefined;
    let seqNo = -1;
    let primaryTerm = -1;
    let updatedAt: number | undefined;
    for (const d of res.docs) {
      if ('error' in d) throw mgetItemError(this.index, d._id, d.error);
      if (!d.found || !d._source) continue;
      if (d._id === META_DOC_ID) {
        meta = d._source as MetaSource;
        seqNo = d._seq_no ?? -1;
        primaryTerm = d._primary_term ?? -1;
      } else if (d._id === UPDATED_DOC_ID) {
        updatedAt = (d._source as { updated_at: number }).updated_at;
      }
    }
    if (!meta) {
      throw new CodesiftError('INDEX_NOT_FOUND', `no codesift index in ${this.index}`, {
        hint: 'index something first (the writer creates it), or check CODESIFT_INDEX_NAME',
      });
    }
    if (meta.schema_version !== ES_SCHEMA_VERSION || meta.analyzer_version !== ANALYZER_VERSION) {
      throw new CodesiftError(
        'INDEX_INCOMPATIBLE',
        `the codesift index in ${this.index} was built by another codesift version (schema ${meta.schema_version}, analyzer ${meta.analyzer_version}; this one: schema ${ES_SCHEMA_VERSION}, analyzer ${ANALYZER_VERSION})`,
        { hint: 'delete the indices (or use a new CODESIFT_INDEX_NAME) and index again' },
      );
    }
    return {
      meta: {
        schemaVersion: meta.schema_version,
        analyzerVersion: meta.analyzer_version,
        embedder: meta.embedder,
        dimensions: meta.dimensions,
        createdAt: meta.created_at,
        updatedAt: updatedAt ?? meta.created_at,
        root: meta.root,
        repositories: { ...meta.repositories },
      },
      seqNo,
      primaryTerm,
    };
  }

  /**
   * Changes the embedder, root or repositories if the doc is still at `at`'s version.
   * Returns false when another writer changed it first (read again, decide again).
   */
  async update(
    at: VersionedMeta,
    change: {
      embedder?: string | null;
      dimensions?: number | null;
      root?: string | null;
      repositories?: Record<string, string>;
    },
  ): Promise<boolean> {
    const m = at.meta;
    const repositories = change.repositories ?? m.repositories;
    const doc: MetaSource = {
      schema_version: m.schemaVersion,
      analyzer_version: m.analyzerVersion,
      embedder: change.embedder !== undefined ? change.embedder : m.embedder,
      dimensions: change.dimensions !== undefined ? change.dimensions : m.dimensions,
      root: change.root !== undefined ? change.root : m.root,
      created_at: m.createdAt,
      // Left out of a one-tree index's doc, which then reads as before repositories existed.
      ...(Object.keys(repositories).length > 0 ? { repositories } : {}),
    };
    try {
      await this.client.index({
        index: this.index,
        id: META_DOC_ID,
        document: doc,
        if_seq_no: at.seqNo,
        if_primary_term: at.primaryTerm,
      });
      return true;
    } catch (err) {
      if (responseErrorType(err) === 'version_conflict_engine_exception') return false;
      throw toCodesiftError(err, 'update meta doc', this.index);
    }
  }

  /** Records the time of a write (last writer wins). */
  async touch(at = this.now()): Promise<void> {
    await call('index', this.index, () =>
      this.client.index({ index: this.index, id: UPDATED_DOC_ID, document: { updated_at: at } }),
    );
  }

  /** Deletes the whole index; a missing one is fine. */
  async drop(): Promise<void> {
    await call('delete index', this.index, () =>
      this.client.indices.delete({ index: this.index, ignore_unavailable: true }),
    );
  }
}
