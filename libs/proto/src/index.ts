// Generated code lives in ./gen (buf generate); this module only re-exports it.
export * from './gen/codesift/v1/cluster_pb.js';
export * from './gen/codesift/v1/common_pb.js';
export * from './gen/codesift/v1/index_pb.js';
export * from './gen/codesift/v1/pipeline_pb.js';
export * from './gen/codesift/v1/search_pb.js';
export * from './gen/codesift/v1/symbols_pb.js';
