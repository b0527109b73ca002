/**
 * Whether an indexed file still is what the index holds. Search results and
 * snippets carry line numbers from the index; after an edit that nobody
 * re-indexed yet (no watch running, or a change the watch has not reached)
 * those lines may point at other code. Rather than re-index while answering
 * (a search must not write, and a server's index is read-only to it), the
 * engine marks such hits `stale` and every surface says so.
 *
 * A file is fresh when its size and mtime equal the manifest's record; when
 * only the mtime moved (a checkout or `touch` that kept the bytes) the
 * content hash decides. A file that is gone or unreadable is stale. A file
 * whose text the index keeps (a cluster's index) is never stale: results
 * and snippets are served from that text, which is what the index holds.
 */
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type FileRecord, sha256Hex, splitRepositoryPath } from '@codesift/core';
import type { SearchIndex } from './search-index.js';

/** The stale paths among `paths` (root-relative, as results carry them). */
export async function stalePaths(
  index: Pick<SearchIndex, 'manifest' | 'meta' | 'fileTexts'>,
  paths: Iterable<string>,
): Promise<Set<string>> {
  const meta = await index.meta();
  const repos = meta.repositories ?? {};
  const unique = [...new Set(paths)];
  const [records, stored] = await Promise.all([
    recordsOf(index.manifest, unique),
    storedTexts(index.fileTexts, unique),
  ]);
  const stale = new Set<string>();
  await Promise.all(
    unique.map(async (rel) => {
      const inRepository = splitRepositoryPath(repos, rel);
      const root = inRepository ? inRepository.root : meta.root;
      const record = records.get(rel);
      if (root === null || !record || stored.has(rel)) return;
      const abs = path.join(root, ...(inRepository ? inRepository.path : rel).split('/'));
      if (!(await matchesRecord(abs, record))) stale.add(rel);
    }),
  );
  return stale;
}

/** The manifest's records of `paths`: one read where the store offers it (SQLite), else one per path. */
async function recordsOf(
  manifest: SearchIndex['manifest'],
  paths: readonly string[],
): Promise<Map<string, FileRecord>> {
  if (manifest.getMany) return manifest.getMany(paths);
  const records = await Promise.all(paths.map((p) => manifest.get(p)));
  return new Map(paths.flatMap((p, i) => (records[i] ? [[p, records[i]]] : [])));
}

/** Which of `paths` the index keeps the text of (served from it, never stale). */
async function storedTexts(
  texts: SearchIndex['fileTexts'],
  paths: readonly string[],
): Promise<Set<string>> {
  if (!texts) return new Set();
  if (texts.stored) return texts.stored(paths);
  const found = await Promise.all(paths.map((p) => texts.get(p)));
  return new Set(paths.filter((_, i) => found[i] !== undefined));
}

async function matchesRecord(abs: string, record: FileRecord): Promise<boolean> {
  try {
    // Synchronous: a stat of a local file takes microseconds, and the
    // promise form costs about five times the CPU (a trip through libuv's
    // thread pool per file, ten files a search) on a server's hot path.
    const st = statSync(abs);
    if (!st.isFile() || st.size !== record.size) return false;
    if (st.mtimeMs === record.mtimeMs) return true;
    return sha256Hex(await readFile(abs)) === record.hash;
  } catch {
    return false;
  }
}
