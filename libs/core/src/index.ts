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
export { DEFAULT_LIMIT, MAX_LIMIT } from './search-limits.js';
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
