export { bearerMetadata, checkBearerToken } from './auth.js';
export type { CallContext } from './call-context.js';
export {
  type ClientOptions,
  type CodesiftClient,
  clientConstructor,
  connectCodesift,
  type HealthStatus,
  type RpcOptions,
  type TypedClient,
  typedClient,
} from './client.js';
export { GrpcStatusError, toServiceError } from './errors.js';
export { HEALTH_SERVICE_NAME } from './health.js';
export {
  type ImplementOptions,
  implement,
  type ServerStreamingHandler,
  type ServiceHandlers,
  type UnaryHandler,
} from './implement.js';
export type {
  IndexJobState,
  IndexJobStatus,
  IndexJobs,
  StartIndexJobRequest,
} from './index-jobs.js';
export { type IndexRootPolicy, jobStatusToProto } from './index-service.js';
export { quietGrpcLogs } from './logging.js';
export {
  connectRemoteEngine,
  DEFAULT_CALL_DEADLINE_MS,
  DEFAULT_SEARCH_DEADLINE_MS,
  type RemoteEngineOptions,
  remoteError,
} from './remote-engine.js';
export { MAX_QUERY_CHARS } from './search-request-limits.js';
export { MAX_SNIPPET_LINE, MAX_SNIPPET_SPAN } from './search-service.js';
export {
  type CodesiftGrpcServer,
  createGrpcServer,
  type GrpcServerOptions,
  type ListenAddress,
  SERVICE_NAMES,
  waitForStopSignal,
} from './server.js';
export {
  type GrpcServiceDefinition,
  grpcServiceDefinition,
  type RequestInitOf,
  type RequestOf,
  type ResponseInitOf,
  type ResponseOf,
} from './service-definition.js';
