export { fromWire, toWire, type WireError } from '@codesift/core';
export { localEngineFactory } from './local-factory.js';
export {
  defaultSearchThreads,
  type LocalPoolOptions,
  openLocalEnginePool,
  workerEnv,
} from './local-pool.js';
export { type EnginePool, type EnginePoolOptions, openEnginePool } from './pool.js';
export type { EngineFactory } from './protocol.js';
