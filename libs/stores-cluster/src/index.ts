export {
  ClusterIndex,
  type ClusterIndexOptions,
  type ClusterNames,
  clusterNames,
  DEFAULT_INDEX_NAME,
  type QdrantSettings,
} from './cluster-index.js';
export {
  type OpenFromEnvOptions,
  openSearchIndexFromEnv,
  openWriterStoreFromEnv,
  type StoreSettings,
  storesFromEnv,
} from './env.js';
export { NO_SYMBOLS } from './no-symbols.js';
export { sqliteWriterStore, type WriterStore } from './writer-store.js';
