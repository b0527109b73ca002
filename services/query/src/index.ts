export {
  DEFAULT_GRPC_HOST,
  DEFAULT_GRPC_PORT,
  type QueryConfig,
  readQueryConfig,
} from './config.js';
export { openClusterEngine, withSymbolService } from './engine.js';
export { main, type RunningQueryService, startQueryService, USAGE } from './main.js';
export {
  type IndexIdentity,
  openReopeningEngine,
  type ReopeningEngine,
  readIndexIdentity,
  sameIdentity,
} from './reopening-engine.js';
