export { CONFIG_FILES, findConfigFile, readConfigFile } from './config-file.js';
export { CodesiftError, type ErrorCode, errorMessage, isCodesiftError } from './errors.js';
export { chunkId, sha256Hex, symbolId } from './ids.js';
export {
  type IndexJobState,
  type IndexJobStatus,
  type IndexJobs,
  queuedJobStatus,
  type StartIndexJobRequest,
} from './index-jobs.js';
export { DEFAULT_INDEX_DIR, INDEX_FILE } from './index-location.js';
export { isInside, resolveInsideRoot, toPosix } from './paths.js';
export {
  checkRepositoryName,
  forgetRepositories,
  type IndexLayout,
  MAX_REPOSITORY_NAME,
  placeRoot,
  repositoriesOf,
  repositoryPrefix,
  splitRepositoryPath,
} from './repositories.js';
export {
  type CheckedRoot,
  checkScanRoot,
  parseScanRoots,
  SCAN_ROOTS_ENV,
  scanRootsFromEnv,
} from './scan-roots.js';
export { DEFAULT_LIMIT, MAX_LIMIT } from './search-limits.js';
export {
  bearerMatches,
  envFlag,
  INSECURE_NO_AUTH_FLAG,
  isLoopbackHost,
  MIN_TOKEN_LENGTH,
  resolveServerAuth,
  weakTokenWarning,
} from './server-auth.js';
export type {
  Chunk,
  ContextSource,
  FileContent,
  FileRecord,
  ScannedFile,
  SkipReason,
  SymbolInfo,
  UnitKind,
} from './types.js';
export { fromWire, toWire, type WireError } from './wire-error.js';
