/**
 * The ChunkStore port on Elasticsearch: full chunks by id, read with `mget`
 * from the keyword index itself. Each chunk doc keeps the raw chunk
 * (content, context, signature, doc) in `_source` beside the fields the
 * keyword search returns, so one doc per chunk serves both ports and a
 * chunk is written (and deleted) in one operation. `mget` is real-time: a
 * chunk is readable once its bulk write returned, refresh or not.
 */
import type { Chunk, UnitKind } from '@codesift/core';
import type { ChunkStore } from '@codesift/stores';
import type { Client, estypes } from '@elastic/elasticsearch';
import type { StoredChunk } from './bulk.js';
import { call } from './errors.js';
import { mgetItemError } from './indices.js';
import { HIT_SOURCE } from './query-builder.js';

/** Ids per mget request. */
export const MGET_BATCH_IDS = 1_000;

/** The `_source` fields a chunk is rebuilt from: a hit's, and the stored chunk (the term fields are not in `_source`). */
export const CHUNK_SOURCE = [...HIT_SOURCE, 'chunk'] as const;

interface ChunkSource {
  id?: string;
  path: string;
  language: string;
  start_line: number;
  end_line: number;
  symbol?: string | null;
  kind: string;
  chunk?: Partial<StoredChunk>;
}

export interface ElasticsearchChunkStoreOptions {
  /** A configured client; the caller owns it. */
  client: Client;
  /** The keyword index holding the chunks (see ElasticsearchKeywordIndex). */
  index: string;
}

export class ElasticsearchChunkStore implements ChunkStore {
  readonly client: Client;
  readonly index: string;

  constructor(opts: ElasticsearchChunkStoreOptions) {
    this.client = opts.client;
    this.index = opts.index;
  }

  async get(ids: string[]): Promise<Chunk[]> {
    const unique = [...new Set(ids)];
    const found = new Map<string, Chunk>();
    for (let i = 0; i < unique.length; i += MGET_BATCH_IDS) {
      const batch = unique.slice(i, i + MGET_BATCH_IDS);
      const res = await call('mget', this.index, () =>
        this.client.mget<ChunkSource>({
          index: this.index,
          ids: batch,
          _source: [...CHUNK_SOURCE],
        }),
      );
      for (const d of res.docs) {
        const c = this.toChunk(d);
        if (c) found.set(c.id, c);
      }
    }
    // In the order asked (duplicates included), unknown ids skipped, as the port says.
    return ids.flatMap((id) => {
      const c = found.get(id);
      return c ? [c] : [];
    });
  }

  private toChunk(d: estypes.MgetResponseItem<ChunkSource>): Chunk | undefined {
    if ('error' in d) throw mgetItemError(this.index, d._id, d.error);
    if (!d.found || !d._source) return undefined;
    const s = d._source;
    const stored = s.chunk ?? {};
    const chunk: Chunk = {
      id: s.id ?? d._id,
      path: s.path,
      language: s.language,
      startLine: s.start_line,
      endLine: s.end_line,
      symbol: s.symbol ?? null,
      kind: s.kind as UnitKind,
      content: stored.content ?? '',
    };
    if (stored.signature !== undefined) chunk.signature = stored.signature;
    if (stored.doc !== undefined) chunk.doc = stored.doc;
    if (stored.context !== undefined) chunk.context = stored.context;
    if (stored.context_source === 'llm' || stored.context_source === 'pattern') {
      chunk.contextSource = stored.context_source;
    }
    if (stored.context_fallback) chunk.contextFallback = stored.context_fallback;
    return chunk;
  }
}
