// Conversions between @codesift/core's (and the engine's) types and their
// protobuf messages: the only place that knows how a value travels.
export { chunkFromWire, chunkToWire, vectorFromWire, vectorToWire } from './chunks.js';
export { fileCommitFromWire, type WireFileCommit } from './file-commit.js';
export {
  indexStatusFromProto,
  indexStatusToProto,
  protoCount,
  searchRequestFromProto,
  searchRequestToProto,
  searchResponseFromProto,
  searchResponseToProto,
  snippetFromProto,
  snippetToProto,
} from './search.js';
export { symbolFromWire, symbolToWire } from './symbols.js';
