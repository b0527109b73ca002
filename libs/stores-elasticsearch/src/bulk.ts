/**
 * Keyword documents as Elasticsearch sources and bulk operations. Every
 * chunk is written with `index` (create or replace) and its chunk id as
 * `_id`, so writing the same chunk again replaces it: upserts are
 * idempotent, as the ports require.
 */
import { analyze } from '@codesift/analysis';
import { CodesiftError } from '@codesift/core';
import type { KeywordDoc } from '@codesift/stores';
import type { estypes } from '@elastic/elasticsearch';

/** The raw chunk kept in `_source` for the ChunkStore (absent fields are omitted). */
export interface StoredChunk {
  content: string;
  context?: string;
  signature?: string;
  doc?: string;
  /** Who wrote `context` (`llm` | `pattern`); absent in docs written before it was recorded. */
  context_source?: string;
  /** Why the pattern stood in for the model. */
  context_fallback?: string;
}

/**
 * What a chunk doc is built from: a KeywordDoc (the port's upsert) or a full
 * Chunk (which adds `doc`; its `context` may be absent).
 */
export type ChunkInput = Omit<KeywordDoc, 'context'> & {
  context?: string;
  doc?: string;
  contextSource?: string;
  contextFallback?: string;
};

/** What one chunk looks like in the index (see template.ts for the mapping). */
export interface KeywordSource {
  id: string;
  path: string;
  language: string;
  start_line: number;
  end_line: number;
  symbol: string | null;
  kind: string;
  chunk: StoredChunk;
  terms: { code: string; symbol: string; path: string; context: string };
}

/** Most docs per bulk request; ES recommends requests of a few MB. */
export const BULK_BATCH_DOCS = 500;
/** Also flush once a batch's analyzed text passes this many characters. */
export const BULK_BATCH_CHARS = 5_000_000;

/**
 * Analyzer output as the text ES indexes: the same fields and the same terms
 * as the SQLite index (symbol and signature together, path, code, context).
 */
export class SourceBuilder {
  private lastPath = '';
  private lastPathTerms = '';

  build(doc: ChunkInput): KeywordSource {
    const symbolText =
      doc.symbol === null ? (doc.signature ?? '') : `${doc.symbol}\n${doc.signature ?? ''}`;
    const chunk: StoredChunk = { content: doc.content };
    if (doc.context !== undefined) chunk.context = doc.context;
    if (doc.signature !== undefined) chunk.signature = doc.signature;
    if (doc.doc !== undefined) chunk.doc = doc.doc;
    if (doc.contextSource !== undefined) chunk.context_source = doc.contextSource;
    if (doc.contextFallback !== undefined) chunk.context_fallback = doc.contextFallback;
    return {
      id: doc.id,
      path: doc.path,
      language: doc.language,
      start_line: doc.startLine,
      end_line: doc.endLine,
      symbol: doc.symbol,
      kind: doc.kind,
      chunk,
      terms: {
        code: analyze(doc.content).join(' '),
        symbol: analyze(symbolText).join(' '),
        path: this.pathTerms(doc.path),
        context: analyze(doc.context ?? '').join(' '),
      },
    };
  }

  /** The chunks of one file come together and share a path; analyze it once per run. */
  private pathTerms(p: string): string {
    if (p !== this.lastPath) {
      this.lastPath = p;
      this.lastPathTerms = analyze(p).join(' ');
    }
    return this.lastPathTerms;
  }
}

/** Bulk operations (action line, source line, ...) for a batch of sources. */
export function bulkOperations(
  sources: readonly KeywordSource[],
): (estypes.BulkOperationContainer | KeywordSource)[] {
  return sources.flatMap((s) => [{ index: { _id: s.id } }, s]);
}

/** Splits sources into bulk batches bounded by doc count and text size. */
export function* batches(
  sources: Iterable<KeywordSource>,
  maxDocs = BULK_BATCH_DOCS,
  maxChars = BULK_BATCH_CHARS,
): Generator<KeywordSource[]> {
  let batch: KeywordSource[] = [];
  let chars = 0;
  for (const s of sources) {
    // The analyzed terms plus the raw chunk stored beside them.
    const size =
      s.terms.code.length +
      s.terms.context.length +
      s.terms.symbol.length +
      s.chunk.content.length +
      (s.chunk.context?.length ?? 0);
    if (batch.length > 0 && (batch.length >= maxDocs || chars + size > maxChars)) {
      yield batch;
      batch = [];
      chars = 0;
    }
    batch.push(s);
    chars += size;
  }
  if (batch.length > 0) yield batch;
}

/**
 * A bulk response reports per-item failures with HTTP 200; turn the first
 * failure into an error (with how many failed) instead of losing writes.
 */
export function checkBulkResponse(res: estypes.BulkResponse, index: string): void {
  if (!res.errors) return;
  const failed = res.items.flatMap((item) => {
    const op = Object.values(item)[0];
    return op?.error ? [{ id: op._id, status: op.status, error: op.error }] : [];
  });
  if (failed.length === 0) return;
  const first = failed[0]!;
  throw new CodesiftError(
    'INTERNAL',
    `Elasticsearch bulk write to index ${index} failed for ${failed.length} of ${res.items.length} docs; first: ${first.id ?? '?'} HTTP ${first.status} ${first.error.type}: ${first.error.reason ?? ''}`,
    {
      hint:
        first.status === 429
          ? 'the cluster is overloaded (rejected execution); retry with smaller batches'
          : 'check the index mapping (was it created by this codesift version?) and the cluster logs',
    },
  );
}
