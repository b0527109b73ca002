/**
 * The KeywordIndex port on Elasticsearch: one index of chunks whose text
 * fields hold codesift's own analyzer output (see template.ts), BM25 with the
 * SQLite store's field weights, bulk upserts keyed by chunk id.
 */
import { ANALYZER_VERSION } from '@codesift/analysis';
import { CodesiftError } from '@codesift/core';
import type { KeywordDoc, KeywordHit, KeywordIndex, KeywordQuery } from '@codesift/stores';
import type { Client } from '@elastic/elasticsearch';
import { batches, bulkOperations, checkBulkResponse, SourceBuilder } from './bulk.js';
import { call, responseErrorType, toCodesiftError } from './errors.js';
import { buildSearch, normalizeTerms, toKeywordHits } from './query-builder.js';
import {
  ES_SCHEMA_VERSION,
  type KeywordIndexSettingsOptions,
  keywordIndexBody,
} from './template.js';
import { MAX_ES_QUERY_TERMS, planTerms, termStatsRequest } from './term-plan.js';

/**
 * When writes become visible. The ports promise that a write is searchable
 * once its promise resolves, which `wait_for` (the default) gives. `false`
 * is faster for a big index run, but then call `refresh()` before searching.
 */
export type RefreshPolicy = 'wait_for' | boolean;

export interface ElasticsearchKeywordIndexOptions extends KeywordIndexSettingsOptions {
  /** A configured client; the caller owns it (and closes it). */
  client: Client;
  /** Index name, e.g. `codesift-chunks` or one per repository. */
  index: string;
  /** Default 'wait_for'. */
  refresh?: RefreshPolicy;
  /** Docs per bulk request (default 500). */
  bulkBatchDocs?: number;
}

/** Paths per delete_by_query; far below the `terms` query's 65,536 limit. */
const DELETE_BATCH_PATHS = 1_000;

export class ElasticsearchKeywordIndex implements KeywordIndex {
  readonly client: Client;
  readonly index: string;
  private readonly refreshPolicy: RefreshPolicy;
  private readonly bulkBatchDocs: number | undefined;
  private readonly settings: KeywordIndexSettingsOptions;

  constructor(opts: ElasticsearchKeywordIndexOptions) {
    this.client = opts.client;
    this.index = opts.index;
    this.refreshPolicy = opts.refresh ?? 'wait_for';
    this.bulkBatchDocs = opts.bulkBatchDocs;
    this.settings = {};
    if (opts.shards !== undefined) this.settings.shards = opts.shards;
    if (opts.replicas !== undefined) this.settings.replicas = opts.replicas;
  }

  /**
   * Creates the index with codesift's settings and mapping unless it exists.
   * An existing index must have been made for this analyzer version: its terms
   * would otherwise not be the terms queries look for (INDEX_INCOMPATIBLE).
   * Returns whether it created the index.
   */
  async ensureIndex(): Promise<boolean> {
    const exists = await call('exists', this.index, () =>
      this.client.indices.exists({ index: this.index }),
    );
    if (exists) {
      await this.checkCompatible();
      return false;
    }
    try {
      await this.client.indices.create({ index: this.index, ...keywordIndexBody(this.settings) });
      return true;
    } catch (err) {
      // Another writer created it between the check and the create.
      if (responseErrorType(err) === 'resource_already_exists_exception') return false;
      throw toCodesiftError(err, 'create index', this.index);
    }
  }

  private async checkCompatible(): Promise<void> {
    const res = await call('get mapping', this.index, () =>
      this.client.indices.getMapping({ index: this.index }),
    );
    const meta = Object.values(res)[0]?.mappings._meta?.codesift as
      | { schema_version?: unknown; analyzer_version?: unknown }
      | undefined;
    if (meta?.schema_version === ES_SCHEMA_VERSION && meta.analyzer_version === ANALYZER_VERSION) {
      return;
    }
    throw new CodesiftError(
      'INDEX_INCOMPATIBLE',
      `Elasticsearch index ${this.index} was built by another codesift version (schema ${String(meta?.schema_version)}, analyzer ${String(meta?.analyzer_version)}; this one: schema ${ES_SCHEMA_VERSION}, analyzer ${ANALYZER_VERSION})`,
      { hint: 'delete the index (or use a new name) and index again' },
    );
  }

  /** Deletes the whole index; a missing one is fine. */
  async drop(): Promise<void> {
    await call('delete index', this.index, () =>
      this.client.indices.delete({ index: this.index, ignore_unavailable: true }),
    );
  }

  /** Makes every write so far searchable (needed only with refresh: false). */
  async refresh(): Promise<void> {
    await call('refresh', this.index, () => this.client.indices.refresh({ index: this.index }));
  }

  async upsert(docs: KeywordDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const builder = new SourceBuilder();
    const sources = docs.map((d) => builder.build(d));
    for (const batch of batches(sources, this.bulkBatchDocs)) {
      const res = await call('bulk', this.index, () =>
        this.client.bulk({
          index: this.index,
          operations: bulkOperations(batch),
          refresh: this.refreshPolicy,
        }),
      );
      checkBulkResponse(res, this.index);
    }
  }

  async deleteByPaths(paths: string[]): Promise<void> {
    const unique = [...new Set(paths)];
    for (let i = 0; i < unique.length; i += DELETE_BATCH_PATHS) {
      const batch = unique.slice(i, i + DELETE_BATCH_PATHS);
      const res = await call('delete_by_query', this.index, () =>
        this.client.deleteByQuery({
          index: this.index,
          query: { terms: { path: batch } },
          // delete_by_query knows no wait_for; any refresh policy but `false` refreshes.
          refresh: this.refreshPolicy !== false,
          // A concurrent upsert of the same chunk wins instead of failing the delete.
          conflicts: 'proceed',
        }),
      );
      if (res.failures?.length) {
        const f = res.failures[0]!;
        throw new CodesiftError(
          'INTERNAL',
          `Elasticsearch delete_by_query on index ${this.index} failed for ${res.failures.length} docs; first: ${f.id} HTTP ${f.status} ${f.cause.type}: ${f.cause.reason ?? ''}`,
          { hint: 'check the cluster logs, then delete these paths again' },
        );
      }
    }
  }

  async search(q: KeywordQuery): Promise<KeywordHit[]> {
    const limit = Math.floor(q.limit);
    if (!(limit > 0)) return [];
    let terms = normalizeTerms(q.terms);
    if (terms.length > MAX_ES_QUERY_TERMS) {
      const all = terms;
      const stats = await call('termvectors', this.index, () =>
        this.client.termvectors({ index: this.index, ...termStatsRequest(all) }),
      );
      terms = planTerms(all, stats);
    }
    if (terms.length === 0) return [];
    const body = buildSearch(terms, limit, q.filter);
    const res = await call('search', this.index, () =>
      this.client.search({ index: this.index, ...body }),
    );
    return toKeywordHits(res);
  }

  async count(): Promise<number> {
    const res = await call('count', this.index, () => this.client.count({ index: this.index }));
    return res.count;
  }
}
