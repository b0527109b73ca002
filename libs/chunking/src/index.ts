export type { Chunker, ChunkerOptions, ChunkInput, ChunkResult } from './chunker.js';
export { createChunker } from './chunker.js';
