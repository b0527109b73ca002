/** For this package's tests: a small tree written to a temporary directory and indexed keyword-only. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { indexRepository } from '@codesift/pipeline';

export interface IndexedTree {
  /** The temporary directory: the tree under `repo/`, the index beside it. */
  dir: string;
  indexPath: string;
  /** Removes the directory. */
  remove(): void;
}

export async function indexedTree(
  prefix: string,
  files: Record<string, string>,
): Promise<IndexedTree> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const root = path.join(dir, 'repo');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  const indexPath = path.join(dir, 'index.db');
  await indexRepository({ root, indexPath, vectors: false });
  return { dir, indexPath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
