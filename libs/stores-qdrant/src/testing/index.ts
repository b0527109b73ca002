export {
  type FakeCollection,
  type FakeQdrant,
  type FakeQdrantOptions,
  type RecordedRequest,
  startFakeQdrant,
} from './fake-qdrant.js';
export { MINIMAL_QDRANT_OPENAPI } from './minimal-schema.js';
export {
  createValidator,
  type HttpRequestShape,
  loadValidator,
  type OpenApiDoc,
  QDRANT_SPEC_FILE,
  type RequestValidator,
  toJsonSchema,
  type ValidationResult,
} from './openapi-validator.js';
