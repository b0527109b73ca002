/**
 * Index settings and mappings of the keyword index. Elasticsearch does no
 * linguistics of its own here: codesift analyzes text in JS
 * (@codesift/analysis `analyze`, code-aware: identifier parts plus the whole
 * identifier, lowercased) and stores the terms space-joined, exactly as the
 * SQLite index does. The `codesift_terms` analyzer only splits on whitespace
 * and lowercases, so ES indexes exactly the terms the local analyzer
 * produced — one analysis everywhere, and the same query terms match in both
 * stores.
 */
import { ANALYZER_VERSION, MAX_TERM_LENGTH } from '@codesift/analysis';
import type { estypes } from '@elastic/elasticsearch';

/**
 * Bumped when the document shape or mapping changes incompatibly.
 * 2: chunk docs carry the stored chunk (content, context, signature, doc)
 * for the ChunkStore; manifest and meta indices added.
 */
export const ES_SCHEMA_VERSION = 2;

/**
 * Per-field weights, the same as the SQLite index's bm25() column weights
 * (`BM25_WEIGHTS` of @codesift/stores): a name match counts most, a path
 * match next, generated context prose half of the code itself.
 */
export const FIELD_WEIGHTS = { code: 1, symbol: 3, path: 2, context: 0.5 } as const;

export type TermField = keyof typeof FIELD_WEIGHTS;

/** Full ES field name of each pre-analyzed text field. */
export const TERM_FIELDS: Record<TermField, string> = {
  code: 'terms.code',
  symbol: 'terms.symbol',
  path: 'terms.path',
  context: 'terms.context',
};

/** Classic BM25 parameters, set explicitly so a cluster default cannot change the ranking. */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

export interface KeywordIndexSettingsOptions {
  /**
   * Default 1: BM25 statistics are per shard, so one shard gives the exact
   * scores the contract suite (and the SQLite index) expects. A code index
   * of millions of chunks still fits one shard comfortably.
   */
  shards?: number;
  /** Default 0 (a single-node dev cluster stays green); raise in production. */
  replicas?: number;
}

const textField: estypes.MappingTextProperty = {
  type: 'text',
  analyzer: 'codesift_terms',
  similarity: 'codesift_bm25',
  // Scores need term frequencies and lengths, never positions (no phrase queries).
  index_options: 'freqs',
};

/** Settings and mappings for a keyword index; used for `indices.create` and in the template. */
export function keywordIndexBody(opts: KeywordIndexSettingsOptions = {}): {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
} {
  return {
    settings: {
      number_of_shards: opts.shards ?? 1,
      number_of_replicas: opts.replicas ?? 0,
      analysis: {
        tokenizer: {
          codesift_whitespace: {
            type: 'whitespace',
            // Longer tokens would be split into terms the local analyzer never made;
            // analyze() emits none longer than MAX_TERM_LENGTH, so this never triggers.
            max_token_length: Math.max(255, MAX_TERM_LENGTH),
          },
        },
        analyzer: {
          codesift_terms: {
            type: 'custom',
            tokenizer: 'codesift_whitespace',
            filter: ['lowercase'],
          },
        },
      },
      similarity: {
        codesift_bm25: { type: 'BM25', k1: BM25.k1, b: BM25.b },
      },
    },
    mappings: {
      dynamic: 'strict',
      _meta: {
        codesift: { schema_version: ES_SCHEMA_VERSION, analyzer_version: ANALYZER_VERSION },
      },
      // The term fields are derived from the chunk and only searched, never read back.
      _source: { excludes: ['terms.*'] },
      properties: {
        id: { type: 'keyword' },
        path: { type: 'keyword' },
        language: { type: 'keyword' },
        symbol: { type: 'keyword' },
        kind: { type: 'keyword' },
        // Returned with hits, never searched.
        start_line: { type: 'integer', index: false },
        end_line: { type: 'integer', index: false },
        // The raw chunk (content, context, signature, doc, and who wrote the context:
        // context_source, context_fallback) for the ChunkStore: kept in _source, never
        // parsed or indexed (its terms are in `terms.*`). Being unparsed, it takes new
        // keys without a mapping change: an index written before context_source
        // existed accepts the new docs and reads its old ones as not recorded.
        chunk: { type: 'object', enabled: false },
        terms: {
          properties: {
            code: textField,
            symbol: textField,
            path: textField,
            context: textField,
          },
        },
      },
    },
  };
}

/**
 * A composable index template with the same settings and mappings, for
 * clusters where indices are created by name pattern (e.g. one index per
 * repository: `codesift-chunks-*`). Install with `indices.putIndexTemplate`.
 */
export function keywordIndexTemplate(
  indexPatterns: string[],
  opts: KeywordIndexSettingsOptions = {},
): Pick<estypes.IndicesPutIndexTemplateRequest, 'index_patterns' | 'template' | '_meta'> {
  return {
    index_patterns: indexPatterns,
    template: keywordIndexBody(opts),
    _meta: { codesift: { schema_version: ES_SCHEMA_VERSION, analyzer_version: ANALYZER_VERSION } },
  };
}

/** The codesift `_meta` every index of the set carries. */
function codesiftMeta(): Record<string, unknown> {
  return { codesift: { schema_version: ES_SCHEMA_VERSION, analyzer_version: ANALYZER_VERSION } };
}

/**
 * The file-text index: one doc per file, its text kept in `_source` and not
 * indexed (nothing searches it; it is read by id), so a large file costs
 * storage only.
 */
export function fileTextIndexBody(opts: KeywordIndexSettingsOptions = {}): {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
} {
  return {
    settings: { number_of_shards: opts.shards ?? 1, number_of_replicas: opts.replicas ?? 0 },
    mappings: {
      dynamic: 'strict',
      _meta: codesiftMeta(),
      properties: { path: { type: 'keyword' }, text: { type: 'text', index: false } },
    },
  };
}

/**
 * The manifest index: one doc per indexed file (its FileRecord), `_id` a hash
 * of the path (ids are limited to 512 bytes, paths are not). Only `path` is
 * searched (listing, counting); the rest is read back from `_source`.
 */
export function manifestIndexBody(opts: KeywordIndexSettingsOptions = {}): {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
} {
  const stored = (type: 'keyword' | 'long' | 'double'): estypes.MappingProperty =>
    type === 'keyword' ? { type, index: false, doc_values: false } : { type, index: false };
  return {
    settings: { number_of_shards: opts.shards ?? 1, number_of_replicas: opts.replicas ?? 0 },
    mappings: {
      dynamic: 'strict',
      _meta: codesiftMeta(),
      properties: {
        path: { type: 'keyword' },
        hash: stored('keyword'),
        size: stored('long'),
        mtime_ms: stored('double'),
        language: stored('keyword'),
        chunk_count: stored('long'),
        symbol_count: stored('long'),
        indexed_at: stored('long'),
      },
    },
  };
}

/**
 * The meta index: a couple of small docs (the index's embedder, root and
 * versions; the time of the last write), read by id only, so nothing in
 * them is indexed.
 */
export function metaIndexBody(opts: KeywordIndexSettingsOptions = {}): {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
} {
  return {
    settings: { number_of_shards: 1, number_of_replicas: opts.replicas ?? 0 },
    mappings: { enabled: false, _meta: codesiftMeta() },
  };
}
