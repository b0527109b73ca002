export { localEngineFactory } from './local-factory.js';
export {
  defaultSearchThreads,
  type LocalPoolOptions,
  openLocalEnginePool,
  workerEnv,
} from './local-pool.js';
export { type EnginePool, type EnginePoolOptions, openEnginePool } from './pool.js';
export { type EngineFactory, fromWire, toWire, type WireError } from './protocol.js';
