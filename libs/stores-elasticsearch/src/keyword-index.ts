/**
 * The KeywordIndex port on Elasticsearch: one index of chunks whose text
 * fields hold codesift's own analyzer output (see template.ts), BM25 with the
 * SQLite store's field weights, bulk upserts keyed by chunk id.
 */
import { CodesiftError } from '@codesift/core';
import type { KeywordHit, KeywordIndex, KeywordQuery } from '@codesift/stores';
import type { Client, estypes } from '@elastic/elasticsearch';
import {
  batches,
  bulkOperations,
  type ChunkInput,
  checkBulkResponse,
  SourceBuilder,
} from './bulk.js';
import { call } from './errors.js';
import { ensureIndexWith } from './indices.js';
import { buildSearch, normalizeTerms, toKeywordHits } from './query-builder.js';
import { type KeywordIndexSettingsOptions, keywordIndexBody } from './template.js';
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
/** Files per stale-chunk delete_by_query (two clauses each, far below max_clause_count). */
const STALE_BATCH_FILES = 200;

/** One file's chunks to keep; every other chunk of `path` is stale. */
export interface StaleChunks {
  path: string;
  keep: readonly string[];
}

/**
 * The query matching the stale chunks of some files: each file's chunks
 * whose id is not among the ones it keeps (all of them when it keeps none).
 */
export function staleChunksQuery(files: readonly StaleChunks[]): estypes.QueryDslQueryContainer {
  return {
    bool: {
      should: files.map((f) => {
        const clause: estypes.QueryDslBoolQuery = {
          // The long form: the published spec has no shorthand `term: {field: value}`.
          filter: [{ term: { path: { value: f.path } } }],
        };
        if (f.keep.length > 0) clause.must_not = [{ ids: { values: [...new Set(f.keep)] } }];
        return { bool: clause };
      }),
      minimum_should_match: 1,
    },
  };
}

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
    return ensureIndexWith(this.client, this.index, keywordIndexBody(this.settings));
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

  /**
   * Writes chunk docs: the analyzer terms for search and the raw chunk for
   * the ChunkStore. Takes KeywordDocs (the port) or full Chunks (with `doc`).
   */
  async upsert(docs: readonly ChunkInput[]): Promise<void> {
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
      await this.deleteByQuery({ terms: { path: unique.slice(i, i + DELETE_BATCH_PATHS) } });
    }
  }

  /**
   * Deletes the chunks of these files that are not in their `keep` lists:
   * what a re-indexed file no longer has. Chunk ids are deterministic, so
   * the chunks it kept were replaced in place by the upsert before this.
   */
  async deleteStale(files: readonly StaleChunks[]): Promise<void> {
    for (let i = 0; i < files.length; i += STALE_BATCH_FILES) {
      await this.deleteByQuery(staleChunksQuery(files.slice(i, i + STALE_BATCH_FILES)));
    }
  }

  private async deleteByQuery(query: estypes.QueryDslQueryContainer): Promise<void> {
    const res = await call('delete_by_query', this.index, () =>
      this.client.deleteByQuery({
        index: this.index,
        query,
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
