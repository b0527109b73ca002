export { type CollectionSpec, createCollectionBody, ensureCollection } from './collection.js';
export { toCodesiftError } from './errors.js';
export { INDEXED_FIELDS, PAYLOAD, pathPrefixes, pathsFilter, toQdrantFilter } from './filters.js';
export { POINT_ID_NAMESPACE, pointId } from './ids.js';
export {
  DEFAULT_QDRANT_URL,
  type QdrantConnection,
  QdrantVectorIndex,
  type QdrantVectorIndexOptions,
  type StalePoints,
  staleFilter,
} from './vector-index.js';
