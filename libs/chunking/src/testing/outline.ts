// Compact views of a chunk result, for the per-language fixture tests.
import type { ChunkResult } from '../chunker.js';

/** `kind:qualifiedName` of every symbol, in order. */
export function symbolOutline(result: ChunkResult): string[] {
  return result.symbols.map((s) => `${s.kind}:${s.qualifiedName}`);
}

/** `start-end kind:symbol` of every chunk, in order. */
export function chunkOutline(result: ChunkResult): string[] {
  return result.chunks.map((c) => `${c.startLine}-${c.endLine} ${c.kind}:${c.symbol}`);
}
