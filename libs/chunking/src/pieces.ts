import type { UnitKind } from '@codesift/core';

export interface Limits {
  maxChunkLines: number;
  maxChunkChars: number;
  overlapLines: number;
  minChunkLines: number;
  windowLines: number;
}

/** What a chunk says about the code it holds. */
export interface UnitMeta {
  symbol: string | null;
  kind: UnitKind;
  signature?: string;
  doc?: string;
}

/**
 * A chunk before it gets its content and id. `from`/`to` are character
 * offsets of the content: whole lines, except for `sliced` pieces cut out of
 * a line too long to fit any chunk.
 */
export interface Piece extends UnitMeta {
  start: number;
  end: number;
  from: number;
  to: number;
  /** A whole unit or gap that may still be merged with tiny neighbours. */
  mergeable: boolean;
  /** Code between definitions (not a definition itself). */
  gap: boolean;
  sliced: boolean;
}
