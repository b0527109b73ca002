// A chunk and its vector on the wire (CodeChunk, Vector): the pipeline's
// messages between chunker, contextualizer, embedder and writer. Protobuf
// has no null or undefined for strings, so absent optional fields travel
// as '' and come back as the domain's absent value.
import { create } from '@bufbuild/protobuf';
import type { Chunk, UnitKind } from '@codesift/core';
import { type CodeChunk, CodeChunkSchema, type Vector, VectorSchema } from '@codesift/proto';

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
    contextSource: c.contextSource ?? '',
    contextFallback: c.contextFallback ?? '',
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
  if (c.contextSource === 'llm' || c.contextSource === 'pattern') {
    chunk.contextSource = c.contextSource;
  }
  if (c.contextFallback) chunk.contextFallback = c.contextFallback;
  return chunk;
}

export function vectorToWire(v: ArrayLike<number>): Vector {
  return create(VectorSchema, { values: Array.from(v) });
}

export function vectorFromWire(v: Vector): Float32Array {
  return Float32Array.from(v.values);
}
