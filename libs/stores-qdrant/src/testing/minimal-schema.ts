/**
 * A hand-written OpenAPI 3.0 description of exactly the Qdrant operations the
 * adapter calls, and of only the request shapes it sends: the record of what
 * the adapter relies on. Written from reading Qdrant's API (same operation
 * ids, parameter names and constraints); minimal-schema.test.ts checks it
 * against the published spec (required), so drift fails the tests. The fake
 * server validates against the published spec itself.
 *
 * Anything outside that subset (named vectors, other match kinds, batch upserts...)
 * is refused by it even where Qdrant would accept it.
 */
import type { OpenApiDoc, OpenApiParameter } from './openapi-validator.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const orNull = (schema: object) => ({ anyOf: [schema, { nullable: true }] });

const collectionName: OpenApiParameter = {
  name: 'collection_name',
  in: 'path',
  required: true,
  schema: { type: 'string' },
};
const timeout: OpenApiParameter = {
  name: 'timeout',
  in: 'query',
  schema: { type: 'integer', minimum: 1 },
};
const writeParams: OpenApiParameter[] = [
  collectionName,
  { name: 'wait', in: 'query', schema: { type: 'boolean' } },
  { name: 'ordering', in: 'query', schema: ref('WriteOrdering') },
  timeout,
];
const readParams: OpenApiParameter[] = [
  collectionName,
  { name: 'consistency', in: 'query', schema: ref('ReadConsistency') },
  timeout,
];
const body = (schema: string) => ({ content: { 'application/json': { schema: ref(schema) } } });

export const MINIMAL_QDRANT_OPENAPI: OpenApiDoc = {
  paths: {
    '/': { get: { operationId: 'root' } },
    '/collections/{collection_name}': {
      get: { operationId: 'get_collection', parameters: [collectionName] },
      put: {
        operationId: 'create_collection',
        parameters: [collectionName, timeout],
        requestBody: body('CreateCollection'),
      },
      delete: { operationId: 'delete_collection', parameters: [collectionName, timeout] },
    },
    '/collections/{collection_name}/exists': {
      get: { operationId: 'collection_exists', parameters: [collectionName] },
    },
    '/collections/{collection_name}/index': {
      put: {
        operationId: 'create_field_index',
        parameters: writeParams,
        requestBody: body('CreateFieldIndex'),
      },
    },
    '/collections/{collection_name}/points': {
      put: {
        operationId: 'upsert_points',
        parameters: writeParams,
        requestBody: body('PointsList'),
      },
    },
    '/collections/{collection_name}/points/delete': {
      post: {
        operationId: 'delete_points',
        parameters: writeParams,
        requestBody: body('PointsSelector'),
      },
    },
    '/collections/{collection_name}/points/query': {
      post: {
        operationId: 'query_points',
        parameters: readParams,
        requestBody: body('QueryRequest'),
      },
    },
    '/collections/{collection_name}/points/count': {
      post: {
        operationId: 'count_points',
        parameters: readParams,
        requestBody: body('CountRequest'),
      },
    },
  },
  components: {
    schemas: {
      WriteOrdering: { type: 'string', enum: ['weak', 'medium', 'strong'] },
      ReadConsistency: {
        anyOf: [
          { type: 'integer', minimum: 1 },
          { type: 'string', enum: ['majority', 'quorum', 'all'] },
        ],
      },
      CreateCollection: {
        type: 'object',
        properties: {
          vectors: ref('VectorParams'),
          on_disk_payload: { type: 'boolean', nullable: true },
        },
      },
      VectorParams: {
        type: 'object',
        required: ['size', 'distance'],
        properties: {
          size: { type: 'integer', format: 'uint64', minimum: 1 },
          distance: { type: 'string', enum: ['Cosine', 'Euclid', 'Dot', 'Manhattan'] },
          on_disk: { type: 'boolean', nullable: true },
        },
      },
      CreateFieldIndex: {
        type: 'object',
        required: ['field_name'],
        properties: {
          field_name: { type: 'string' },
          field_schema: orNull({
            type: 'string',
            enum: ['keyword', 'integer', 'float', 'geo', 'text', 'bool', 'datetime', 'uuid'],
          }),
        },
      },
      PointsList: {
        type: 'object',
        required: ['points'],
        properties: { points: { type: 'array', items: ref('PointStruct') } },
      },
      PointStruct: {
        type: 'object',
        required: ['id', 'vector'],
        properties: {
          id: ref('ExtendedPointId'),
          vector: ref('DenseVector'),
          payload: orNull({ type: 'object', additionalProperties: true }),
        },
      },
      ExtendedPointId: {
        anyOf: [
          { type: 'integer', format: 'uint64', minimum: 0 },
          { type: 'string', format: 'uuid' },
        ],
      },
      DenseVector: { type: 'array', items: { type: 'number', format: 'float' } },
      PointsSelector: {
        anyOf: [
          {
            type: 'object',
            required: ['points'],
            properties: { points: { type: 'array', items: ref('ExtendedPointId') } },
          },
          { type: 'object', required: ['filter'], properties: { filter: ref('Filter') } },
        ],
      },
      Filter: {
        type: 'object',
        properties: {
          should: ref('Conditions'),
          must: ref('Conditions'),
          must_not: ref('Conditions'),
        },
        additionalProperties: false,
      },
      // One condition or a list of them, as Qdrant accepts both.
      Conditions: {
        anyOf: [ref('Condition'), { type: 'array', items: ref('Condition') }, { nullable: true }],
      },
      Condition: { anyOf: [ref('FieldCondition'), ref('HasIdCondition'), ref('Filter')] },
      HasIdCondition: {
        type: 'object',
        required: ['has_id'],
        properties: { has_id: { type: 'array', items: ref('ExtendedPointId') } },
      },
      FieldCondition: {
        type: 'object',
        required: ['key'],
        properties: { key: { type: 'string' }, match: orNull(ref('Match')) },
      },
      Match: {
        anyOf: [
          {
            type: 'object',
            required: ['value'],
            properties: {
              value: {
                anyOf: [
                  { type: 'string' },
                  { type: 'integer', format: 'int64' },
                  { type: 'boolean' },
                ],
              },
            },
          },
          {
            type: 'object',
            required: ['any'],
            properties: {
              any: {
                anyOf: [
                  { type: 'array', items: { type: 'string' }, uniqueItems: true },
                  { type: 'array', items: { type: 'integer', format: 'int64' }, uniqueItems: true },
                ],
              },
            },
          },
        ],
      },
      QueryRequest: {
        type: 'object',
        properties: {
          query: orNull(ref('DenseVector')),
          filter: orNull(ref('Filter')),
          limit: { type: 'integer', format: 'uint', minimum: 1, nullable: true },
          offset: { type: 'integer', format: 'uint', minimum: 0, nullable: true },
          score_threshold: { type: 'number', format: 'float', nullable: true },
          with_payload: orNull({
            anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string' } }],
          }),
          with_vector: orNull({ type: 'boolean' }),
        },
      },
      CountRequest: {
        type: 'object',
        properties: { filter: orNull(ref('Filter')), exact: { type: 'boolean' } },
      },
    },
  },
};
