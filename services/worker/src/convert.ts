// Wire <-> domain mapping for the pipeline messages. Protobuf has no null or
// undefined for strings, so absent optional fields travel as '' and come
// back as the domain's absent value; this is the only place that knows.
import { create } from '@bufbuild/protobuf';
import type { Chunk, FileRecord, UnitKind } from '@codesift/core';
import {
  type CodeChunk,
  CodeChunkSchema,
  type FileChunks,
  type Vector,
  VectorSchema,
} from '@codesift/proto';
import type { FileCommit } from '@codesift/stores';
import { symbolFromWire } from '@codesift/wire';

// The symbol mapping is shared with gRPC and the symbol service.
export { symbolFromWire, symbolToWire } from '@codesift/wire';

export function chunkToWire(c: Chunk): CodeChunk {
  return create(CodeChunkSchema, {
    id: c.id,
    path: c.path,
    language: c.language,
    range: { startLine: c.startLine, endLine: c.endLine },
    symbol: c.symbol ?? '',
    kind: c.kind,
    content: c.content,
    signature: c.signature ?? '',
    doc: c.doc ?? '',
    context: c.context ?? '',
  });
}

export function chunkFromWire(c: CodeChunk): Chunk {
  const chunk: Chunk = {
    id: c.id,
    path: c.path,
    language: c.language,
    startLine: c.range?.startLine ?? 0,
    endLine: c.range?.endLine ?? 0,
    symbol: c.symbol || null,
    kind: c.kind as UnitKind,
    content: c.content,
  };
  if (c.signature) chunk.signature = c.signature;
  if (c.doc) chunk.doc = c.doc;
  if (c.context) chunk.context = c.context;
  return chunk;
}

export function vectorToWire(v: ArrayLike<number>): Vector {
  return create(VectorSchema, { values: Array.from(v) });
}

export function vectorFromWire(v: Vector): Float32Array {
  return Float32Array.from(v.values);
}

/** The writer's unit of work: one file replaced whole, with its manifest record. */
export function fileCommitFromWire(m: FileChunks, indexedAt = Date.now()): FileCommit {
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
  };
}
