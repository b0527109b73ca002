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
  const stale = new Set<string>();
  await Promise.all(
    [...new Set(paths)].map(async (rel) => {
      const inRepository = splitRepositoryPath(repos, rel);
      const root = inRepository ? inRepository.root : meta.root;
      if (root === null) return;
      const record = await index.manifest.get(rel);
      if (!record || (await index.fileTexts?.get(rel)) !== undefined) return;
      const abs = path.join(root, ...(inRepository ? inRepository.path : rel).split('/'));
      if (!(await matchesRecord(abs, record))) stale.add(rel);
    }),
  );
  return stale;
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
