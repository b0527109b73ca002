/**
 * Warming a watch's chunker at start (issue 15): the first saved edit of a
 * server's life otherwise pays for loading its language's tree-sitter
 * grammar and for the parser's first run, most of a second on a busy
 * machine. The languages are those the index holds, so a repository without
 * Go never loads the Go grammar; each is warmed with one of its own files.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Chunker, ChunkInput } from '@codesift/chunking';
import type { FileRecord } from '@codesift/core';
import { openSqliteIndex } from '@codesift/stores';

/**
 * The sample chunked per language: its largest indexed file up to this
 * size, else its smallest. Large enough to run most of the grammar, small
 * enough that chunking it (synchronous) holds the event loop only briefly.
 */
export const WARM_SAMPLE_MAX_BYTES = 16 * 1024;

/** One file per language, from the index's manifest; the language's choice by WARM_SAMPLE_MAX_BYTES. */
export function warmSamples(records: Iterable<FileRecord>): FileRecord[] {
  const best = new Map<string, FileRecord>();
  const better = (a: FileRecord, b: FileRecord) => {
    const aFits = a.size <= WARM_SAMPLE_MAX_BYTES;
    const bFits = b.size <= WARM_SAMPLE_MAX_BYTES;
    if (aFits !== bFits) return aFits;
    return aFits ? a.size > b.size : a.size < b.size;
  };
  for (const r of records) {
    if (r.chunkCount === 0) continue;
    const have = best.get(r.language);
    if (!have || better(r, have)) best.set(r.language, r);
  }
  return [...best.values()];
}

/**
 * Warms `chunker` for the languages of the index at `indexPath`, reading
 * one sample file of each from `root`. Resolves with the languages warmed;
 * an unreadable index or sample only leaves that much cold.
 */
export async function warmChunker(
  chunker: Chunker,
  root: string,
  indexPath: string,
): Promise<string[]> {
  if (!chunker.warm) return [];
  let records: FileRecord[];
  try {
    const index = openSqliteIndex(indexPath, { readonly: true });
    try {
      records = warmSamples((await index.manifest.all()).values());
    } finally {
      index.close();
    }
  } catch {
    return [];
  }
  const samples: ChunkInput[] = [];
  for (const r of records) {
    if (!chunker.supports(r.language)) continue;
    try {
      const text = await readFile(path.join(root, r.path), 'utf8');
      samples.push({ path: r.path, language: r.language, text });
    } catch {
      // Deleted or unreadable since it was indexed: that language stays cold.
    }
  }
  return chunker.warm(samples);
}
