// A FileChunks message (a file's chunks, symbols and vectors, the end of the
// pipeline) as the writer commits it: one file replaced whole, with its
// manifest record.
import type { Chunk, FileRecord, SymbolInfo } from '@codesift/core';
import type { FileChunks } from '@codesift/proto';
import { chunkFromWire, vectorFromWire } from './chunks.js';
import { symbolFromWire } from './symbols.js';

/**
 * The stores' FileCommit, spelled out here so that this package needs no
 * store: @codesift/stores' commitFiles takes it as is.
 */
export interface WireFileCommit {
  record: FileRecord;
  chunks: Chunk[];
  /** One vector per chunk, same order; null when the file came without vectors. */
  vectors: Float32Array[] | null;
  symbols: SymbolInfo[];
  /** The file's text when the message carried it (the stores keep it for snippets). */
  text?: string;
}

export function fileCommitFromWire(m: FileChunks, indexedAt = Date.now()): WireFileCommit {
  const chunks = m.chunks.map(chunkFromWire);
  const symbols = m.symbols.map(symbolFromWire);
  const record: FileRecord = {
    path: m.path,
    hash: m.hash,
    size: Number(m.size),
    mtimeMs: m.mtimeMs,
    language: m.language,
    chunkCount: chunks.length,
    symbolCount: symbols.length,
    indexedAt,
  };
  return {
    record,
    chunks,
    vectors: m.vectors.length > 0 ? m.vectors.map(vectorFromWire) : null,
    symbols,
    ...(m.text === undefined ? {} : { text: m.text }),
  };
}
