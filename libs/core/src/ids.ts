import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Deterministic chunk id: re-chunking identical content at the same place
 * yields the same id, so upserts are idempotent across redeliveries and runs.
 */
export function chunkId(path: string, startLine: number, endLine: number, content: string): string {
  return sha256Hex(`${path}\0${startLine}\0${endLine}\0${sha256Hex(content)}`).slice(0, 32);
}

export function symbolId(path: string, qualifiedName: string, startLine: number): string {
  return sha256Hex(`${path}\0${qualifiedName}\0${startLine}`).slice(0, 32);
}
