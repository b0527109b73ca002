import { createHash } from 'node:crypto';

/**
 * Namespace of codesift's name-based point ids (a fixed random UUID). Changing it
 * would orphan every point already stored, so it never changes.
 */
export const POINT_ID_NAMESPACE = '6f1c8a52-3d4b-4e0f-9a7c-2b5d8e41c903';

const namespaceBytes = Buffer.from(POINT_ID_NAMESPACE.replaceAll('-', ''), 'hex');

/**
 * Qdrant point ids must be an unsigned integer or a UUID, while chunk ids are
 * arbitrary strings. A name-based UUID (RFC 9562 version 5: SHA-1 of namespace + name)
 * maps each chunk id to the same point every time, so upserts stay idempotent
 * across runs and any other client can compute the id too. The chunk id itself
 * travels in the payload, because the mapping cannot be reversed.
 */
export function pointId(chunkId: string): string {
  const h = createHash('sha1').update(namespaceBytes).update(chunkId, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
