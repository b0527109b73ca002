/**
 * Qdrant's requests are checked against its published OpenAPI document
 * (../shared/specs/qdrant-openapi-v1.19.0.json, or QDRANT_OPENAPI_SPEC),
 * with the validator shared with the Elasticsearch adapter's tests
 * (@codesift/stores/openapi-testing).
 */
import {
  publishedSpecPath,
  publishedValidator,
  type RequestValidator,
} from '@codesift/stores/openapi-testing';

export {
  createValidator,
  type HttpRequestShape,
  type OpenApiDoc,
  type OpenApiParameter,
  type RequestValidator,
  toJsonSchema,
  type ValidationResult,
} from '@codesift/stores/openapi-testing';

export const QDRANT_SPEC_FILE = 'qdrant-openapi-v1.19.0.json';

/** The validator tests use; throws when the spec file is missing (required, not optional). */
export function loadValidator(
  specPath = publishedSpecPath(QDRANT_SPEC_FILE, process.env.QDRANT_OPENAPI_SPEC),
): RequestValidator {
  return publishedValidator(specPath, 'Qdrant OpenAPI');
}
