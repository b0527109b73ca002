/**
 * Creating and checking the indices of a codesift store set. Every index
 * carries `_meta.codesift` (schema and analyzer versions) in its mapping; an
 * existing index made by another version is refused, because its docs (or
 * terms) are not what this version reads and writes.
 */
import { ANALYZER_VERSION } from '@codesift/analysis';
import { CodesiftError } from '@codesift/core';
import type { Client, estypes } from '@elastic/elasticsearch';
import { call, responseErrorType, toCodesiftError } from './errors.js';
import { ES_SCHEMA_VERSION } from './template.js';

export interface IndexBody {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
}

/**
 * Creates `index` with `body` unless it exists; checks an existing one.
 * Returns whether it created the index. A concurrent create is not an error.
 */
export async function ensureIndexWith(
  client: Client,
  index: string,
  body: IndexBody,
): Promise<boolean> {
  const exists = await call('exists', index, () => client.indices.exists({ index }));
  if (exists) {
    await checkCompatible(client, index);
    return false;
  }
  try {
    await client.indices.create({ index, ...body });
    return true;
  } catch (err) {
    // Another writer created it between the check and the create.
    if (responseErrorType(err) === 'resource_already_exists_exception') return false;
    throw toCodesiftError(err, 'create index', index);
  }
}

/** Throws INDEX_INCOMPATIBLE unless `index` was made for this schema and analyzer version. */
export async function checkCompatible(client: Client, index: string): Promise<void> {
  const res = await call('get mapping', index, () => client.indices.getMapping({ index }));
  const meta = Object.values(res)[0]?.mappings._meta?.codesift as
    | { schema_version?: unknown; analyzer_version?: unknown }
    | undefined;
  if (meta?.schema_version === ES_SCHEMA_VERSION && meta.analyzer_version === ANALYZER_VERSION) {
    return;
  }
  throw new CodesiftError(
    'INDEX_INCOMPATIBLE',
    `Elasticsearch index ${index} was built by another codesift version (schema ${String(meta?.schema_version)}, analyzer ${String(meta?.analyzer_version)}; this one: schema ${ES_SCHEMA_VERSION}, analyzer ${ANALYZER_VERSION})`,
    { hint: 'delete the index (or use a new name) and index again' },
  );
}

/** An mget item's failure as a CodesiftError (a missing index is INDEX_NOT_FOUND). */
export function mgetItemError(index: string, id: string, error: estypes.ErrorCause): CodesiftError {
  if (error.type === 'index_not_found_exception') {
    return new CodesiftError('INDEX_NOT_FOUND', `Elasticsearch index ${index} does not exist`, {
      hint: 'index something first, or check the index name (CODESIFT_INDEX_NAME)',
    });
  }
  return new CodesiftError(
    'INTERNAL',
    `Elasticsearch mget on index ${index} failed for ${id}: ${error.type}: ${error.reason ?? ''}`,
    { hint: 'check the cluster health and its logs (GET _cluster/health)' },
  );
}
