import { CodesiftError } from '@codesift/core';
import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import { INDEXED_FIELDS } from './filters.js';

export interface CollectionSpec {
  collection: string;
  dimensions: number;
  /**
   * Serve original vectors from disk (memmap) instead of RAM. Default false: the
   * HNSW graph needs them on every search, and code indexes are small enough.
   */
  onDiskVectors?: boolean;
}

/** The request body that creates the collection; exported so tests can assert its shape. */
export function createCollectionBody(spec: CollectionSpec): Schemas['CreateCollection'] {
  return {
    // Unnamed single vector, cosine: the port's score is cosine similarity, and Qdrant
    // normalizes vectors for Cosine so its score is exactly that.
    vectors: { size: spec.dimensions, distance: 'Cosine', on_disk: spec.onDiskVectors ?? false },
    // Payloads (chunk id, path, path prefixes) are only read for the hits returned;
    // the indexed fields stay in RAM regardless, so filtering does not touch disk.
    on_disk_payload: true,
  };
}

function vectorParams(info: Schemas['CollectionInfo']): Schemas['VectorParams'] | undefined {
  const v = info.config.params.vectors;
  if (v && typeof v === 'object' && 'size' in v && typeof v.size === 'number')
    return v as Schemas['VectorParams'];
  return undefined;
}

function isConflict(err: unknown): boolean {
  return (err as { status?: unknown } | null)?.status === 409;
}

/**
 * Creates the collection when it is missing, checks an existing one was made for
 * the same vectors, and makes sure the payload indexes exist (creating an index
 * that exists is a no-op in Qdrant, so a writer that died half-way is repaired).
 */
export async function ensureCollection(client: QdrantClient, spec: CollectionSpec): Promise<void> {
  const { exists } = await client.collectionExists(spec.collection);
  let verify = exists;
  if (!exists) {
    try {
      await client.createCollection(spec.collection, createCollectionBody(spec));
    } catch (err) {
      // Another writer created it between our check and our create: fine, if compatible.
      if (!isConflict(err)) throw err;
      verify = true;
    }
  }
  if (verify) {
    const params = vectorParams(await client.getCollection(spec.collection));
    if (params?.size !== spec.dimensions || params.distance !== 'Cosine') {
      const found = params ? `${params.size}-d ${params.distance}` : 'named or missing vectors';
      throw new CodesiftError(
        'INDEX_INCOMPATIBLE',
        `Qdrant collection "${spec.collection}" holds ${found}, not ${spec.dimensions}-d Cosine vectors`,
        { hint: 'use another collection name, or delete this collection and index again' },
      );
    }
  }
  for (const field of INDEXED_FIELDS) {
    await client.createPayloadIndex(spec.collection, {
      field_name: field,
      field_schema: 'keyword',
      wait: true,
    });
  }
}
